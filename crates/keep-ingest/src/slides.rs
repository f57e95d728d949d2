//! Slides of a presentation (PPTX, ODP) as the sections of one document:
//! each headed by its title, or by its number when it has none.

/// The deck's title when its properties name none: its first slide's.
pub fn title_of(slides: &[(Option<String>, String)]) -> Option<String> {
    slides.first()?.0.as_deref().map(one_line)
}

/// Each slide as Markdown under a `## ` heading, empty slides left out.
pub fn headed(slides: Vec<(Option<String>, String)>) -> Vec<String> {
    slides
        .into_iter()
        .enumerate()
        .filter(|(_, (title, body))| title.is_some() || !body.trim().is_empty())
        .map(|(i, (title, body))| {
            let title = title.map_or_else(|| format!("Slide {}", i + 1), |t| one_line(&t));
            let body = body.trim();
            if body.is_empty() {
                format!("## {title}")
            } else {
                format!("## {title}\n\n{body}")
            }
        })
        .collect()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
