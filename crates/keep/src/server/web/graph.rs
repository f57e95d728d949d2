//! A note's neighbourhood drawn as a graph: the notes its edges reach both
//! ways, the notes it replaces or that replace it, and the notes sharing
//! each of its tags; with two hops, the edges of those notes too. Drawn
//! on the server as SVG (every node a link), with the same neighbours as
//! a list for keyboards and screen readers.

use std::collections::HashMap;
use std::f64::consts::TAU;
use std::fmt::Write;

use keep_commands::Filters;
use keep_commands::get::Get;
use keep_commands::list::List;
use keep_commands::shapes::ViewJson;

use super::Seen;
use super::html::{
    alert, encode, esc, first_line, label_of, note_href, note_link, relations, tag_pairs,
    with_query,
};
use crate::server::query::Query;

/// The most notes a tag node shows, and the most nodes a graph has.
const PER_TAG: usize = 5;
const MOST_NODES: usize = 48;
/// Radius of each ring.
const RINGS: [f64; 3] = [0.0, 170.0, 330.0];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Note,
    Tag,
}

struct Node {
    key: String,
    label: String,
    kind: Kind,
    hop: usize,
    parent: usize,
}

struct Link {
    from: usize,
    to: usize,
    label: String,
}

#[derive(Default)]
struct Graph {
    nodes: Vec<Node>,
    links: Vec<Link>,
    index: HashMap<String, usize>,
}

impl Graph {
    /// The node of `key`, added under `parent` at `hop` if new (None when
    /// the graph is full).
    fn node(
        &mut self,
        key: &str,
        label: &str,
        kind: Kind,
        hop: usize,
        parent: usize,
    ) -> Option<usize> {
        let key = match kind {
            Kind::Note => format!("n:{key}"),
            Kind::Tag => format!("t:{key}"),
        };
        if let Some(&at) = self.index.get(&key) {
            return Some(at);
        }
        if self.nodes.len() >= MOST_NODES {
            return None;
        }
        self.nodes.push(Node {
            key: key.clone(),
            label: label.to_string(),
            kind,
            hop,
            parent,
        });
        self.index.insert(key, self.nodes.len() - 1);
        Some(self.nodes.len() - 1)
    }

    fn link(&mut self, from: usize, to: usize, label: &str) {
        let known = self
            .links
            .iter()
            .any(|l| (l.from == from && l.to == to) || (l.from == to && l.to == from));
        if from != to && !known {
            self.links.push(Link {
                from,
                to,
                label: label.to_string(),
            });
        }
    }
}

pub fn page(seen: &Seen<'_>, id: &str, query: &Query) -> (u16, String, String) {
    let hops = if query.one("hops") == Some("2") { 2 } else { 1 };
    let centre = match read(seen, id) {
        Ok(note) => note,
        Err((status, message)) => return (status, "No such note".into(), alert(&message)),
    };
    let mut graph = Graph::default();
    let label = name_of(&centre);
    graph.node(id, &label, Kind::Note, 0, 0);
    let firsts = neighbours(seen, &mut graph, &centre, 0, 1, true);
    for at in firsts {
        // Each neighbour read once: its name, and with two hops its edges.
        let key = graph.nodes[at].key.trim_start_matches("n:").to_string();
        if let Ok(note) = read(seen, &key) {
            graph.nodes[at].label = name_of(&note);
            if hops == 2 {
                neighbours(seen, &mut graph, &note, at, 2, false);
            }
        }
    }
    let switch = if hops == 1 {
        format!(
            "<a href=\"{}\">Two hops</a>",
            esc(&with_query(
                &format!("/graph/{}", encode(id)),
                &[("hops", "2")]
            ))
        )
    } else {
        format!(
            "<a href=\"{}\">One hop</a>",
            esc(&format!("/graph/{}", encode(id)))
        )
    };
    let body = format!(
        "<h1>Around {}</h1><p>{} · {switch}</p>{}{}",
        esc(&label),
        note_link(id, "Read the note"),
        svg(&graph),
        list(&graph)
    );
    (200, format!("Graph of {label}"), body)
}

/// Note `id` as `get` shows it, read as the page's caller.
fn read(seen: &Seen<'_>, id: &str) -> Result<ViewJson, (u16, String)> {
    seen.run(Get::id(id))
        .map(|viewed| ViewJson::full(&viewed.view))
}

/// What a node of note `note` is called.
fn name_of(note: &ViewJson) -> String {
    label_of(&note.note.summary, &note.note.tags, 40)
}

/// Adds the neighbours of `note` (node `at`) at `hop`: its edges both
/// ways, what it replaces and what replaces it, and (with `tags`) a node
/// for each of its tags with notes sharing it. Returns the notes added.
fn neighbours(
    seen: &Seen<'_>,
    graph: &mut Graph,
    note: &ViewJson,
    at: usize,
    hop: usize,
    tags: bool,
) -> Vec<usize> {
    let mut added = Vec::new();
    let mut reach = |graph: &mut Graph, other: &str, label: &str| {
        if let Some(to) = graph.node(other, other, Kind::Note, hop, at) {
            graph.link(at, to, label);
            if graph.nodes[to].hop == hop && !added.contains(&to) {
                added.push(to);
            }
        }
    };
    let links = relations(note);
    for link in &links {
        reach(graph, link.other, link.name);
    }
    if !tags {
        return added;
    }
    let own = note.note.id.as_str();
    let (user, _) = tag_pairs(&note.note.tags);
    for (key, value) in user {
        let is_edge = links
            .iter()
            .any(|l| l.arrow == "→" && l.name == key && l.other == value);
        if is_edge || key == "may-supersede" {
            continue;
        }
        let pair = format!("{key}={value}");
        let Some(tag) = graph.node(&pair, &pair, Kind::Tag, hop, at) else {
            break;
        };
        graph.link(at, tag, "tag");
        let sharing = List {
            filters: Filters {
                tag: vec![pair.clone()],
                ..Filters::default()
            },
            limit: Some(PER_TAG + 1),
            ..List::default()
        };
        let Ok(sharing) = seen.run(sharing) else {
            continue;
        };
        for other in sharing.notes.iter().filter(|n| n.id != own).take(PER_TAG) {
            let label = label_of(&other.summary, &other.tags, 40);
            if let Some(to) = graph.node(&other.id, &label, Kind::Note, hop + 1, tag) {
                graph.link(tag, to, "");
            }
        }
    }
    added
}

/// Where each node sits: the centre, then each ring spread around the
/// circle, a node's children within its parent's share of it.
fn layout(graph: &Graph) -> Vec<(f64, f64)> {
    let mut angle = vec![0.0f64; graph.nodes.len()];
    let mut share = vec![TAU; graph.nodes.len()];
    for ring in 1..RINGS.len() {
        let mut by_parent: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, node) in graph.nodes.iter().enumerate() {
            if node.hop.min(RINGS.len() - 1) == ring && i != 0 {
                by_parent.entry(node.parent).or_default().push(i);
            }
        }
        for (parent, children) in by_parent {
            let width = if ring == 1 { TAU } else { share[parent] * 0.9 };
            let step = width / children.len() as f64;
            let start = if ring == 1 {
                -TAU / 4.0
            } else {
                angle[parent] - width / 2.0 + step / 2.0
            };
            for (k, &child) in children.iter().enumerate() {
                angle[child] = start + step * k as f64;
                share[child] = step;
            }
        }
    }
    graph
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let r = RINGS[node.hop.min(RINGS.len() - 1)];
            (r * angle[i].cos(), r * angle[i].sin())
        })
        .collect()
}

fn href(node: &Node) -> String {
    match node.kind {
        Kind::Note => note_href(node.key.trim_start_matches("n:")),
        Kind::Tag => with_query("/", &[("tag", node.key.trim_start_matches("t:"))]),
    }
}

fn svg(graph: &Graph) -> String {
    let at = layout(graph);
    // The box around every node and its label, with room for the text.
    let (mut left, mut top, mut right, mut bottom) = (-120.0f64, -40.0f64, 120.0f64, 60.0f64);
    for &(x, y) in &at {
        left = left.min(x - 110.0);
        right = right.max(x + 110.0);
        top = top.min(y - 30.0);
        bottom = bottom.max(y + 40.0);
    }
    let mut out = format!(
        "<svg id=\"graph\" class=\"graph\" viewBox=\"{left:.0} {top:.0} {:.0} {:.0}\" role=\"img\" aria-label=\"Neighbourhood graph\">",
        right - left,
        bottom - top
    );
    for link in &graph.links {
        let ((x1, y1), (x2, y2)) = (at[link.from], at[link.to]);
        let _ = write!(
            out,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\"><title>{}</title></line>",
            esc(&link.label)
        );
        if !link.label.is_empty() && link.label != "tag" {
            let _ = write!(
                out,
                "<text class=\"link-label\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                (x1 + x2) / 2.0,
                (y1 + y2) / 2.0,
                esc(&link.label)
            );
        }
    }
    for (i, node) in graph.nodes.iter().enumerate() {
        let (x, y) = at[i];
        let shape = match (node.kind, i) {
            (_, 0) => format!("<circle class=\"centre\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"13\"/>"),
            (Kind::Note, _) => format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"8\"/>"),
            (Kind::Tag, _) => format!(
                "<rect class=\"tag-node\" x=\"{:.1}\" y=\"{:.1}\" width=\"14\" height=\"14\" transform=\"rotate(45 {x:.1} {y:.1})\"/>",
                x - 7.0,
                y - 7.0
            ),
        };
        let _ = write!(
            out,
            "<a href=\"{}\" class=\"node\">{shape}<text x=\"{x:.1}\" y=\"{:.1}\">{}</text></a>",
            esc(&href(node)),
            y + 24.0,
            esc(&first_line(&node.label, 28))
        );
    }
    out.push_str("</svg>");
    out
}

/// The graph as a list: each node under the node it was reached from.
fn list(graph: &Graph) -> String {
    let mut out = String::from("<h2>Neighbours</h2><ul id=\"graph-nodes\" class=\"edges\">");
    for (i, node) in graph.nodes.iter().enumerate().skip(1) {
        let how = graph
            .links
            .iter()
            .find(|l| l.to == i || l.from == i)
            .map(|l| l.label.clone())
            .unwrap_or_default();
        let from = &graph.nodes[node.parent].label;
        let _ = write!(
            out,
            "<li class=\"hop{}\"><a href=\"{}\">{}</a> <span class=\"muted\">{} {}{}</span></li>",
            node.hop,
            esc(&href(node)),
            esc(&node.label),
            if node.kind == Kind::Tag {
                "tag of"
            } else {
                "from"
            },
            esc(&first_line(from, 40)),
            if how.is_empty() || how == "tag" {
                String::new()
            } else {
                format!(" by {}", esc(&how))
            }
        );
    }
    if graph.nodes.len() == 1 {
        out.push_str("<li class=\"muted\">This note has no edges and no tags.</li>");
    }
    out.push_str("</ul>");
    out
}
