//! Work shared out over threads: a map over a slice on several cores, in order.

/// `f` of every item, on as many threads as there are cores, in order.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    par_map_on(items, threads, 64, f)
}

/// `f` of every item, on up to `threads` threads when there are at least `min` items, in order.
pub fn par_map_on<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    min: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    if threads < 2 || items.len() < min.max(2) {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| s.spawn(|| c.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}
