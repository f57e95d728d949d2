//! What `keep serve` answers beside MCP, under one caller: the JSON API
//! (`api`) and the web page (`web`), which reads through the API.

use std::sync::Arc;

use super::Warm;
use super::api::{self, API_AGENT, Asked, Serving};
use super::web;
use crate::mcp::rights::CallerRights;
use crate::server::http::{Answer, Visit};
use keep_core::model::Tags;

/// The API of one server: its keepers and its scope.
pub struct Api {
    pub warm: Arc<Warm>,
    pub scope: Tags,
}

impl crate::server::http::Routes for Api {
    fn serves(&self, path: &str) -> bool {
        api::serves(path) || web::serves(path)
    }

    fn is_page(&self, path: &str) -> bool {
        web::serves(path)
    }

    fn answer(&self, visit: &Visit, method: &str, path: &str, query: &str, body: &[u8]) -> Answer {
        let caller = &visit.caller;
        let author = caller.author(API_AGENT);
        let serving = Serving {
            warm: &self.warm,
            author: &author,
            caller,
            scope: &self.scope,
        };
        let asked = Asked {
            method,
            path,
            query,
            body,
        };
        if web::serves(path) {
            return web::answer(&serving, visit, &asked);
        }
        let reply = api::answer(&serving, &asked);
        Answer::json(reply.status, reply.naming(&visit.request_id))
    }

    fn sign_in(&self, failed: Option<&str>) -> Answer {
        web::sign_in(failed)
    }
}
