//! English function words that carry no topic, for sentence scoring.

const STOPWORDS: &[&str] = &[
    "about", "above", "after", "again", "against", "all", "also", "and", "any", "are", "because",
    "been", "before", "being", "below", "between", "both", "but", "can", "could", "did", "does",
    "doing", "down", "during", "each", "even", "every", "few", "for", "from", "further", "get",
    "got", "had", "has", "have", "having", "her", "here", "hers", "herself", "him", "himself",
    "his", "how", "into", "its", "itself", "just", "like", "made", "make", "many", "may", "more",
    "most", "much", "must", "new", "nor", "not", "now", "off", "once", "one", "only", "other",
    "ought", "our", "ours", "ourselves", "out", "over", "own", "said", "same", "say", "see",
    "shall", "she", "should", "some", "still", "such", "than", "that", "the", "their", "theirs",
    "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "too",
    "two", "under", "until", "upon", "use", "used", "using", "very", "was", "way", "well", "were",
    "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
    "yet", "you", "your", "yours", "yourself", "yourselves",
];

pub fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_list_is_sorted_for_binary_search() {
        assert!(super::STOPWORDS.windows(2).all(|w| w[0] < w[1]));
    }
}
