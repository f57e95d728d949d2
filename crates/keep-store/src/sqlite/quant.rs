//! Int8 codes of stored vectors, for a fast first pass of nearest-neighbour
//! search: each vector is kept as 8-bit integers plus one scale (a quarter
//! of the float size). A search scores every code against the quantised
//! query with integer arithmetic, then scores the best few hundred again
//! against the float query, which makes the similarities exact to about
//! three decimals.

/// Rows scored a second time per row wanted...
const RESCORE_FACTOR: usize = 4;
/// ...and at least this many.
const RESCORE_MIN: usize = 200;

/// A vector as int8 values; `value[i] * scale` is the unit vector.
pub fn quantize(v: &[f32]) -> (f32, Vec<i8>) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if norm == 0.0 || max == 0.0 {
        return (0.0, vec![0; v.len()]);
    }
    let code = v.iter().map(|x| (x / max * 127.0).round() as i8).collect();
    (max / 127.0 / norm, code)
}

/// Rows per thread below which a scan stays on one thread.
const ROWS_PER_THREAD: usize = 16_384;

#[inline(always)]
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum()
}

/// `dot_i8(query, code)` for each code of `values`, written to `out`.
#[inline(always)]
fn dots_portable(query: &[i8], values: &[i8], out: &mut [i32]) {
    for (code, score) in values.chunks_exact(query.len()).zip(out) {
        *score = dot_i8(query, code);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dots_avx2(query: &[i8], values: &[i8], out: &mut [i32]) {
    dots_portable(query, values, out);
}

/// The same loop, compiled for AVX2 when the processor has it.
fn dots(query: &[i8], values: &[i8], out: &mut [i32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor supports AVX2, checked just above.
        unsafe { dots_avx2(query, values, out) };
        return;
    }
    dots_portable(query, values, out);
}

/// `a·b` and `b·b` of two codes: a query's against a stored one, and the
/// stored one's squared length.
#[inline(always)]
fn dot_and_square_portable(a: &[i8], b: &[i8]) -> (i32, i32) {
    let (mut dot, mut square) = (0i32, 0i32);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (i32::from(x), i32::from(y));
        dot += x * y;
        square += y * y;
    }
    (dot, square)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot_and_square_avx2(a: &[i8], b: &[i8]) -> (i32, i32) {
    dot_and_square_portable(a, b)
}

/// The same loop, compiled for AVX2 when the processor has it.
pub(super) fn dot_and_square(a: &[i8], b: &[i8]) -> (i32, i32) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor supports AVX2, checked just above.
        return unsafe { dot_and_square_avx2(a, b) };
    }
    dot_and_square_portable(a, b)
}

/// `dots` over all codes, split across the available cores for large sets.
fn all_dots(query: &[i8], values: &[i8], rows: usize) -> Vec<i32> {
    let mut out = vec![0i32; rows];
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(rows / ROWS_PER_THREAD)
        .max(1);
    if threads == 1 {
        dots(query, values, &mut out);
        return out;
    }
    let per_thread = rows.div_ceil(threads);
    std::thread::scope(|scope| {
        for (values, out) in values
            .chunks(per_thread * query.len())
            .zip(out.chunks_mut(per_thread))
        {
            scope.spawn(move || dots(query, values, out));
        }
    });
    out
}

fn dot_f32_i8(a: &[f32], b: &[i8]) -> f32 {
    a.iter().zip(b).map(|(&x, &y)| x * f32::from(y)).sum()
}

/// The codes of every vector of one kind, in memory, by ascending key.
/// A removed code stays in place, marked, until the codes are read again.
#[derive(Debug, Default, Clone)]
pub struct Codes {
    dims: usize,
    keys: Vec<i64>,
    scales: Vec<f32>,
    values: Vec<i8>,
    removed: Vec<bool>,
    removed_count: usize,
}

impl Codes {
    pub fn new(dims: usize) -> Self {
        Codes {
            dims,
            ..Codes::default()
        }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Codes marked removed, waiting for the next full read.
    pub fn removed(&self) -> usize {
        self.removed_count
    }

    /// Adds a stored code, in ascending key order; codes of another length
    /// are skipped.
    pub fn push(&mut self, key: i64, scale: f32, code: &[u8]) {
        if code.len() != self.dims || self.keys.last().is_some_and(|&last| last >= key) {
            return;
        }
        self.keys.push(key);
        self.scales.push(scale);
        self.values.extend(code.iter().map(|&b| b as i8));
        self.removed.push(false);
    }

    /// Sets the code of `key`: replaced in place, or added after the
    /// largest key. False when it would go between keys (the codes must
    /// then be read again) or has another length.
    pub fn set(&mut self, key: i64, scale: f32, code: &[u8]) -> bool {
        if code.len() != self.dims {
            return false;
        }
        match self.keys.binary_search(&key) {
            Ok(i) => {
                self.scales[i] = scale;
                let start = i * self.dims;
                for (to, &b) in self.values[start..start + self.dims].iter_mut().zip(code) {
                    *to = b as i8;
                }
                if std::mem::replace(&mut self.removed[i], false) {
                    self.removed_count -= 1;
                }
                true
            }
            Err(i) if i == self.keys.len() => {
                self.push(key, scale, code);
                true
            }
            Err(_) => false,
        }
    }

    /// Marks the code of `key` removed.
    pub fn remove(&mut self, key: i64) {
        if let Ok(i) = self.keys.binary_search(&key)
            && !std::mem::replace(&mut self.removed[i], true)
        {
            self.removed_count += 1;
        }
    }

    /// Each code that is not removed, with its key.
    pub fn iter(&self) -> impl Iterator<Item = (i64, &[i8])> {
        (0..self.len())
            .filter(|&i| !self.removed[i])
            .map(|i| (self.keys[i], self.code(i)))
    }

    fn code(&self, i: usize) -> &[i8] {
        &self.values[i * self.dims..(i + 1) * self.dims]
    }

    /// The `k` rows nearest to `query` by cosine distance, nearest first.
    pub fn nearest(&self, query: &[f32], k: usize) -> Vec<(i64, f64)> {
        if k == 0 || self.is_empty() || query.len() != self.dims {
            return Vec::new();
        }
        let (_, q_code) = quantize(query);
        let unit = unit_vector(query);
        let mut rough: Vec<(f32, usize)> = all_dots(&q_code, &self.values, self.len())
            .into_iter()
            .zip(&self.scales)
            .enumerate()
            .filter(|&(i, _)| !self.removed[i])
            .map(|(i, (dot, scale))| (dot as f32 * scale, i))
            .collect();
        if rough.is_empty() {
            return Vec::new();
        }
        let keep = (k * RESCORE_FACTOR).max(RESCORE_MIN).min(rough.len());
        rough.select_nth_unstable_by(keep - 1, |a, b| b.0.total_cmp(&a.0));
        rough.truncate(keep);
        let mut fine: Vec<(f64, i64)> = rough
            .into_iter()
            .map(|(_, i)| (1.0 - f64::from(self.similarity(&unit, i)), self.keys[i]))
            .collect();
        best_first(&mut fine, k)
    }
}

impl Codes {
    /// The `k` rows among `keys` nearest to `query`, nearest first; keys
    /// without a code are skipped.
    pub fn nearest_among(&self, query: &[f32], keys: &[i64], k: usize) -> Vec<(i64, f64)> {
        if k == 0 || query.len() != self.dims {
            return Vec::new();
        }
        let unit = unit_vector(query);
        let mut scored: Vec<(f64, i64)> = keys
            .iter()
            .filter_map(|key| self.keys.binary_search(key).ok())
            .filter(|&i| !self.removed[i])
            .map(|i| (1.0 - f64::from(self.similarity(&unit, i)), self.keys[i]))
            .collect();
        best_first(&mut scored, k)
    }

    fn similarity(&self, unit_query: &[f32], i: usize) -> f32 {
        dot_f32_i8(unit_query, self.code(i)) * self.scales[i]
    }
}

/// `v` scaled to length 1 (a zero vector stays zero).
pub fn unit_vector(v: &[f32]) -> Vec<f32> {
    let norm = v
        .iter()
        .map(|x| x * x)
        .sum::<f32>()
        .sqrt()
        .max(f32::MIN_POSITIVE);
    v.iter().map(|x| x / norm).collect()
}

/// The `k` smallest distances, ties by key, as `(key, distance)`.
fn best_first(scored: &mut Vec<(f64, i64)>, k: usize) -> Vec<(i64, f64)> {
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    scored.truncate(k);
    scored.iter().map(|&(d, key)| (key, d)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    /// Deterministic pseudo-random unit vectors.
    fn vectors(n: usize, dims: usize) -> Vec<Vec<f32>> {
        let mut state = 12345u64;
        (0..n)
            .map(|_| {
                let v: Vec<f32> = (0..dims)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        (state % 2000) as f32 / 1000.0 - 1.0
                    })
                    .collect();
                unit(&v)
            })
            .collect()
    }

    fn cosine(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(x, y)| f64::from(x * y)).sum()
    }

    #[test]
    fn codes_are_replaced_added_and_removed_in_place() {
        let all = vectors(4, 32);
        let code = |v: &[f32]| {
            let (scale, code) = quantize(v);
            (scale, code.iter().map(|&c| c as u8).collect::<Vec<u8>>())
        };
        let mut codes = Codes::new(32);
        for (key, v) in [(2, &all[0]), (5, &all[1])] {
            let (scale, bytes) = code(v);
            codes.push(key, scale, &bytes);
        }
        assert_eq!(codes.nearest(&all[1], 1)[0].0, 5);
        let (scale, bytes) = code(&all[2]);
        assert!(codes.set(5, scale, &bytes), "replaced");
        assert_eq!(codes.nearest(&all[2], 1)[0].0, 5);
        let (scale, bytes) = code(&all[3]);
        assert!(!codes.set(3, scale, &bytes), "between two keys: read again");
        assert!(codes.set(9, scale, &bytes), "after the largest key");
        assert_eq!(codes.nearest(&all[3], 1)[0].0, 9);
        codes.remove(9);
        assert_eq!(codes.removed(), 1);
        assert!(codes.nearest(&all[3], 3).iter().all(|(key, _)| *key != 9));
        assert!(codes.nearest_among(&all[3], &[9], 1).is_empty());
        assert!(codes.set(9, scale, &bytes), "back again");
        assert_eq!(codes.removed(), 0);
        codes.remove(2);
        codes.remove(5);
        codes.remove(9);
        assert!(codes.nearest(&all[0], 2).is_empty());
    }

    #[test]
    fn codes_keep_similarities_to_three_decimals() {
        let all = vectors(50, 64);
        for pair in all.windows(2) {
            let (scale, code) = quantize(&pair[1]);
            let bytes: Vec<u8> = code.iter().map(|&c| c as u8).collect();
            let mut codes = Codes::new(64);
            codes.push(7, scale, &bytes);
            let (key, distance) = codes.nearest(&pair[0], 1)[0];
            assert_eq!(key, 7);
            assert!((1.0 - distance - cosine(&pair[0], &pair[1])).abs() < 2e-3);
        }
    }

    #[test]
    fn nearest_agrees_with_exact_search() {
        let all = vectors(2000, 64);
        let mut codes = Codes::new(64);
        for (i, v) in all.iter().enumerate() {
            let (scale, code) = quantize(v);
            let bytes: Vec<u8> = code.iter().map(|&c| c as u8).collect();
            codes.push(i as i64, scale, &bytes);
        }
        for q in vectors(5, 64)
            .iter()
            .map(|q| unit(&q.iter().map(|x| x * 3.0).collect::<Vec<_>>()))
        {
            let mut exact: Vec<(f64, i64)> = all
                .iter()
                .enumerate()
                .map(|(i, v)| (1.0 - cosine(&q, v), i as i64))
                .collect();
            exact.sort_by(|a, b| a.0.total_cmp(&b.0));
            let found = codes.nearest(&q, 10);
            let found_keys: Vec<i64> = found.iter().map(|f| f.0).collect();
            let exact_keys: Vec<i64> = exact[..10].iter().map(|e| e.1).collect();
            let shared = found_keys.iter().filter(|k| exact_keys.contains(k)).count();
            assert!(shared >= 9, "{found_keys:?} vs {exact_keys:?}");
            assert_eq!(found_keys[0], exact_keys[0]);
        }
    }

    #[test]
    fn split_and_vectorised_scans_match_the_plain_loop() {
        let dims = 48;
        let rows = ROWS_PER_THREAD * 2 + 77;
        let mut state = 99u32;
        let values: Vec<i8> = (0..rows * dims)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (state >> 16) as i8
            })
            .collect();
        let query: Vec<i8> = values[..dims].iter().map(|v| v.wrapping_mul(3)).collect();
        let expected: Vec<i32> = values
            .chunks_exact(dims)
            .map(|code| {
                let mut sum = 0;
                for (a, b) in query.iter().zip(code) {
                    sum += i32::from(*a) * i32::from(*b);
                }
                sum
            })
            .collect();
        assert_eq!(all_dots(&query, &values, rows), expected);
    }

    #[test]
    fn nearest_among_scores_only_the_given_keys() {
        let all = vectors(300, 32);
        let mut codes = Codes::new(32);
        for (i, v) in all.iter().enumerate() {
            let (scale, code) = quantize(v);
            let bytes: Vec<u8> = code.iter().map(|&c| c as u8).collect();
            codes.push(i as i64 * 2, scale, &bytes);
        }
        let q = &all[10];
        let allowed = [40, 20, 7, 600, 300];
        let found = codes.nearest_among(q, &allowed, 3);
        assert_eq!(found[0].0, 20);
        assert!(found[0].1.abs() < 2e-3);
        let keys: Vec<i64> = found.iter().map(|f| f.0).collect();
        assert!(keys.iter().all(|k| [40, 20, 300].contains(k)));
        let mut expected: Vec<(f64, i64)> = [40i64, 20, 300]
            .iter()
            .map(|&k| (1.0 - cosine(q, &all[k as usize / 2]), k))
            .collect();
        expected.sort_by(|a, b| a.0.total_cmp(&b.0));
        for ((key, d), (e, ek)) in found.iter().zip(&expected) {
            assert_eq!(key, ek);
            assert!((d - e).abs() < 2e-3);
        }
    }

    #[test]
    fn zero_and_mismatched_vectors_find_nothing() {
        assert_eq!(quantize(&[0.0, 0.0]), (0.0, vec![0, 0]));
        let mut codes = Codes::new(2);
        codes.push(1, 1.0, &[1, 2, 3]);
        assert!(codes.is_empty());
        codes.push(2, 0.01, &[0, 100]);
        codes.push(2, 0.01, &[0, 100]);
        assert_eq!(codes.len(), 1);
        codes.push(3, 0.01, &[100, 0]);
        assert!(codes.nearest(&[1.0, 0.0, 0.0], 3).is_empty());
        assert_eq!(codes.nearest(&[1.0, 0.0], 3)[0].0, 3);
    }
}
