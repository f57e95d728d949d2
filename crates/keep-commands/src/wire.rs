//! How arguments arrive as well as they are typed: a query string gives
//! every value as text and a repeated key as a list, a JSON body gives
//! numbers, booleans and lists. The readers here take both, so one
//! argument type serves a query, a body and the command line.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// The parameters of a query string as a JSON object: each value a
/// string, a repeated key a list of them.
pub fn query_object(pairs: impl IntoIterator<Item = (String, String)>) -> Value {
    let mut object = Map::new();
    for (key, value) in pairs {
        match object.get_mut(&key) {
            None => {
                object.insert(key, Value::String(value));
            }
            Some(Value::Array(values)) => values.push(Value::String(value)),
            Some(first) => {
                let first = first.take();
                object.insert(key, Value::Array(vec![first, Value::String(value)]));
            }
        }
    }
    Value::Object(object)
}

#[derive(Deserialize)]
#[serde(untagged)]
enum TextOr<T> {
    Typed(T),
    Text(String),
}

fn parsed<T, E>(text: &str) -> Result<T, E>
where
    T: FromStr,
    T::Err: Display,
    E: serde::de::Error,
{
    text.trim()
        .parse()
        .map_err(|e| E::custom(format!("'{text}': {e}")))
}

/// A number, given as one or as text.
pub fn number<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + FromStr,
    T::Err: Display,
{
    match TextOr::<T>::deserialize(d)? {
        TextOr::Typed(n) => Ok(n),
        TextOr::Text(text) => parsed(&text),
    }
}

/// A number that may be left out, given as one or as text.
pub fn maybe_number<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + FromStr,
    T::Err: Display,
{
    match Option::<TextOr<T>>::deserialize(d)? {
        None => Ok(None),
        Some(TextOr::Typed(n)) => Ok(Some(n)),
        Some(TextOr::Text(text)) if text.trim().is_empty() => Ok(None),
        Some(TextOr::Text(text)) => parsed(&text).map(Some),
    }
}

/// A yes or no: a boolean, or `true`, `1`, `false`, `0` as text.
pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    match TextOr::<bool>::deserialize(d)? {
        TextOr::Typed(b) => Ok(b),
        TextOr::Text(text) => match text.as_str() {
            "true" | "1" | "" => Ok(true),
            "false" | "0" => Ok(false),
            other => Err(D::Error::custom(format!("'{other}' is not true or false"))),
        },
    }
}

/// A list, or one value standing for a list of one.
pub fn many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(one) => vec![one],
        OneOrMany::Many(many) => many,
    })
}

/// Tags as `["k=v", ...]` or `{"k": "v" | ["v", ...]}`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TagList {
    #[default]
    #[schemars(skip)]
    None,
    /// `KEY=VALUE` pairs.
    Pairs(Vec<String>),
    /// Each key with one value or a list of them.
    Map(BTreeMap<String, OneOrMore>),
}

/// One value, or several.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMore {
    One(String),
    More(Vec<String>),
}

impl TagList {
    /// The tags as `KEY=VALUE` pairs, in order.
    pub fn pairs(self) -> Vec<String> {
        match self {
            TagList::None => Vec::new(),
            TagList::Pairs(pairs) => pairs,
            TagList::Map(map) => map
                .into_iter()
                .flat_map(|(k, v)| {
                    let values = match v {
                        OneOrMore::One(v) => vec![v],
                        OneOrMore::More(vs) => vs,
                    };
                    values.into_iter().map(move |v| format!("{k}={v}"))
                })
                .collect(),
        }
    }
}

impl From<Vec<String>> for TagList {
    fn from(pairs: Vec<String>) -> Self {
        TagList::Pairs(pairs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Args {
        #[serde(default, deserialize_with = "number")]
        limit: usize,
        #[serde(default, deserialize_with = "maybe_number")]
        hops: Option<u8>,
        #[serde(default, deserialize_with = "flag")]
        deep: bool,
        #[serde(default, deserialize_with = "many")]
        tag: Vec<String>,
    }

    #[test]
    fn a_query_and_a_body_give_the_same_arguments() {
        let pairs = [
            ("limit", "5"),
            ("hops", "2"),
            ("deep", "1"),
            ("tag", "a=b"),
            ("tag", "c"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let query: Args = serde_json::from_value(query_object(pairs)).unwrap();
        let body: Args = serde_json::from_value(serde_json::json!(
            {"limit": 5, "hops": 2, "deep": true, "tag": ["a=b", "c"]}
        ))
        .unwrap();
        for args in [query, body] {
            assert_eq!(
                (args.limit, args.hops, args.deep, args.tag),
                (5, Some(2), true, vec!["a=b".to_string(), "c".to_string()])
            );
        }
    }

    #[test]
    fn text_that_is_not_what_a_field_takes_is_named() {
        let error = serde_json::from_value::<Args>(serde_json::json!({"limit": "ten"}))
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("'ten'"), "{error}");
        let error = serde_json::from_value::<Args>(serde_json::json!({"deep": "maybe"}))
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("'maybe'"), "{error}");
    }
}
