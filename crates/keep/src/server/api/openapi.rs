//! The OpenAPI 3.1 document of the JSON API, generated from the route
//! catalogue and the commands' own types, as MCP's schemas are: each
//! route's parameters or body are its command's arguments, its answer the
//! command's result.

use schemars::SchemaGenerator;
use schemars::generate::{Contract, SchemaSettings};
use serde_json::{Map, Value, json};

use super::catalog::{Route, routes};
use crate::server::Health;

/// Where the document keeps its shared schemas.
const SCHEMAS: &str = "/components/schemas";

fn generator(contract: Contract) -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = SCHEMAS.into();
            s.meta_schema = None;
            s.contract = contract;
        })
        .into_generator()
}

/// The whole document.
pub fn document() -> Value {
    let mut takes = generator(Contract::Deserialize);
    let mut gives = generator(Contract::Serialize);
    let mut paths = Map::new();
    for route in routes() {
        let operation = operation(route, &mut takes, &mut gives);
        let entry = paths
            .entry(route.path.to_string())
            .or_insert_with(|| json!({}));
        entry[route.method.to_lowercase()] = operation;
    }
    let health = gives.subschema_for::<Health>();
    let mut schemas = takes.take_definitions(true);
    schemas.extend(gives.take_definitions(true));
    schemas.insert("Error".into(), error_schema());
    schemas.insert("HealthBrief".into(), brief_health_schema());
    let mut all = Map::new();
    all.insert("/health".into(), health_path(health.to_value()));
    all.insert("/openapi.json".into(), document_path());
    all.extend(paths);
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "keep",
            "version": "1",
            "description": "The JSON API of keep serve, beside MCP at /mcp and the web page at /. The same shapes as the command line's --json. On a loopback address only loopback Host and Origin headers are accepted; on any other address every request needs Authorization: Bearer TOKEN (keep serve --token, or keep token add). A browser signed in through the page shows its token in a cookie instead, and each of its writes must carry the page's CSRF token in X-Keep-CSRF. A server started with --scope, or a token made with --scope, confines every call to notes with its tags and tags every note put; a note outside the caller's scope answers as if it did not exist. Every answer carries X-Request-Id, and an error names it as request_id."
        },
        "servers": [{ "url": "http://127.0.0.1:7377" }],
        "components": {
            "securitySchemes": {
                "token": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "needed when the server listens on a non-loopback address, or was started with --require-token"
                }
            },
            "schemas": schemas,
        },
        "security": [{}, { "token": [] }],
        "paths": all,
    })
}

/// One route's operation: its parameters or body, its answers.
fn operation(route: &Route, takes: &mut SchemaGenerator, gives: &mut SchemaGenerator) -> Value {
    let (arguments, answer) = (route.schemas)(takes, gives);
    let arguments = resolved(takes, arguments.to_value());
    let example: Value = serde_json::from_str(route.example).unwrap_or_else(|_| json!({}));
    let mut parameters = Vec::new();
    if route.takes_id() {
        parameters.push(json!({
            "name": "id",
            "in": "path",
            "required": true,
            "description": "the note's id, percent-encoded",
            "schema": { "type": "string" },
        }));
    }
    let mut operation = json!({
        "operationId": route.operation,
        "summary": route.summary,
    });
    if let Some(description) = arguments.get("description") {
        operation["description"] = description.clone();
    }
    let body = without_id(arguments, route.takes_id());
    if route.method == "GET" {
        parameters.extend(query_parameters(&body, &example));
    } else {
        operation["requestBody"] = json!({
            "required": !route.takes_id(),
            "content": { "application/json": { "schema": body, "example": example } },
        });
    }
    operation["parameters"] = Value::Array(parameters);
    operation["responses"] = responses(route, answer.to_value());
    operation
}

/// A schema with a reference to a shared schema replaced by that schema.
fn resolved(generator: &SchemaGenerator, schema: Value) -> Value {
    let name = schema["$ref"]
        .as_str()
        .and_then(|r| r.rsplit('/').next())
        .map(str::to_string);
    match name.and_then(|n| generator.definitions().get(&n).cloned()) {
        Some(shared) => shared,
        None => schema,
    }
}

/// The arguments without `id`, when the path gives it.
fn without_id(mut arguments: Value, takes_id: bool) -> Value {
    if takes_id {
        if let Some(properties) = arguments["properties"].as_object_mut() {
            properties.remove("id");
        }
        if let Some(required) = arguments["required"].as_array_mut() {
            required.retain(|r| r != "id");
        }
    }
    arguments.as_object_mut().map(|o| o.remove("description"));
    arguments
}

/// Each argument as a query parameter, with the example's value.
fn query_parameters(arguments: &Value, example: &Value) -> Vec<Value> {
    let required: Vec<&str> = arguments["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = arguments["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, schema)| {
            let mut schema = schema.clone();
            let description = schema
                .as_object_mut()
                .and_then(|s| s.remove("description"))
                .unwrap_or(Value::Null);
            let mut parameter = json!({
                "name": name,
                "in": "query",
                "required": required.contains(&name.as_str()),
                "schema": schema,
            });
            if !description.is_null() {
                parameter["description"] = description;
            }
            if parameter["schema"]["type"] == "array" {
                parameter["style"] = json!("form");
                parameter["explode"] = json!(true);
            }
            if let Some(value) = example.get(name) {
                parameter["example"] = value.clone();
            }
            parameter
        })
        .collect()
}

/// An error answer, described.
fn error(description: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } },
    })
}

fn responses(route: &Route, answer: Value) -> Value {
    let given = json!({
        "description": route.answers,
        "content": { "application/json": { "schema": answer } },
    });
    let mut responses = json!({
        "200": given,
        "400": error("bad request: the message says what"),
        "401": error("no token, or one that is unknown, expired or revoked"),
        "403": error("the caller may not: a read-only token writing, a tag outside its scope, a command of the whole store; or a browser's write without the page's CSRF token"),
        "404": error("no such note, or one outside the caller's scope"),
        "500": error("the command failed; the message says why"),
        "503": error("the store cannot be reached"),
    });
    if route.method == "POST" {
        responses["409"] = error("the id is held by a note outside the caller's scope");
    }
    if route.operation == "put" {
        responses["201"] = json!({
            "description": "stored: created, or possible_update (stored beside the note it probably updates)",
            "content": { "application/json": { "schema": given["content"]["application/json"]["schema"] } },
        });
    }
    responses
}

fn error_schema() -> Value {
    json!({
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": { "type": "string" },
            "request_id": { "type": "string", "description": "the request's id, as X-Request-Id gives it" },
        },
    })
}

fn brief_health_schema() -> Value {
    json!({
        "type": "object",
        "description": "what a caller other than the owner sees",
        "required": ["status", "version"],
        "properties": {
            "status": { "type": "string" },
            "version": { "type": "string" },
        },
    })
}

fn health_path(health: Value) -> Value {
    let either = json!({ "anyOf": [health, { "$ref": "#/components/schemas/HealthBrief" }] });
    json!({ "get": {
        "operationId": "health",
        "summary": "Whether the server, its store and its model work (the details for the owner only)",
        "parameters": [],
        "responses": {
            "200": { "description": "the server and its store work (status ok or degraded)",
                     "content": { "application/json": { "schema": either } } },
            "503": { "description": "the store cannot be reached",
                     "content": { "application/json": { "schema": either } } },
        },
    }})
}

fn document_path() -> Value {
    json!({ "get": {
        "operationId": "openapi",
        "summary": "This document",
        "parameters": [],
        "responses": { "200": { "description": "the OpenAPI 3.1 document",
                                "content": { "application/json": { "schema": { "type": "object" } } } } },
    }})
}
