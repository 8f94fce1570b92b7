//! Line diffs. [`unified`] is the form without context (`diff -U0`) that `index --dry-run`
//! shows: hunk headers, then the removed lines prefixed `-` and the added lines prefixed `+`.
//! Myers' algorithm; past a bound on the number of differences, the differing middle is
//! reported as replaced whole. [`common_ends`] is the trim both it and `lint --fix`'s report
//! start from. Pure; no I/O.

/// Differences beyond which the middle of the files is reported as replaced whole.
const MAX_EDITS: usize = 2000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Keep,
    Remove,
    Add,
}

/// The hunks that turn `old` into `new`; empty when they are equal.
pub fn unified(old: &str, new: &str) -> Vec<String> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let (prefix, suffix) = common_ends(&a, &b);
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let ops = myers(ma, mb).unwrap_or_else(|| {
        let mut ops = vec![Op::Remove; ma.len()];
        ops.extend(std::iter::repeat_n(Op::Add, mb.len()));
        ops
    });
    hunks(&ops, ma, mb, prefix)
}

/// How many lines `a` and `b` share at the start, then how many of the rest at the end: what
/// lies between differs.
pub fn common_ends(a: &[&str], b: &[&str]) -> (usize, usize) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (prefix, suffix)
}

fn hunks(ops: &[Op], a: &[&str], b: &[&str], offset: usize) -> Vec<String> {
    let mut out = Vec::new();
    let (mut i, mut j, mut k) = (0, 0, 0);
    while k < ops.len() {
        if ops[k] == Op::Keep {
            i += 1;
            j += 1;
            k += 1;
            continue;
        }
        let (start_i, start_j) = (i, j);
        let mut removed = Vec::new();
        let mut added = Vec::new();
        while k < ops.len() && ops[k] != Op::Keep {
            match ops[k] {
                Op::Remove => {
                    removed.push(format!("-{}", a[i]));
                    i += 1;
                }
                _ => {
                    added.push(format!("+{}", b[j]));
                    j += 1;
                }
            }
            k += 1;
        }
        out.push(format!(
            "@@ -{} +{} @@",
            range(offset + start_i, removed.len()),
            range(offset + start_j, added.len())
        ));
        out.append(&mut removed);
        out.append(&mut added);
    }
    out
}

/// A hunk range: `line` (1-based) when one line, `line,count` otherwise; an empty range names
/// the line before it, as `diff` does.
fn range(start: usize, count: usize) -> String {
    match count {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        n => format!("{},{n}", start + 1),
    }
}

/// The shortest edit script from `a` to `b`, or `None` past [`MAX_EDITS`] differences.
fn myers(a: &[&str], b: &[&str]) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = (n + m) as usize;
    let off = max as isize + 1;
    let mut v = vec![0isize; 2 * max + 3];
    // trace[d] holds v for diagonals -(d+1)..=d+1 as it was before step d.
    let mut trace: Vec<Vec<isize>> = Vec::new();
    for d in 0..=max {
        if d > MAX_EDITS {
            return None;
        }
        let d_i = d as isize;
        trace.push(v[(off - d_i - 1) as usize..=(off + d_i + 1) as usize].to_vec());
        let mut k = -d_i;
        while k <= d_i {
            let idx = (off + k) as usize;
            let mut x = if k == -d_i || (k != d_i && v[idx - 1] < v[idx + 1]) {
                v[idx + 1]
            } else {
                v[idx - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[idx] = x;
            if x >= n && y >= m {
                return Some(backtrack(&trace, n, m));
            }
            k += 2;
        }
    }
    Some(Vec::new())
}

fn backtrack(trace: &[Vec<isize>], n: isize, m: isize) -> Vec<Op> {
    let mut ops = Vec::new();
    let (mut x, mut y) = (n, m);
    for (d, v) in trace.iter().enumerate().rev() {
        let d = d as isize;
        // v's index 0 is diagonal -(d+1).
        let at = |k: isize| v[(k + d + 1) as usize];
        let k = x - y;
        let prev_k = if k == -d || (k != d && at(k - 1) < at(k + 1)) {
            k + 1
        } else {
            k - 1
        };
        let prev_x = if d == 0 { 0 } else { at(prev_k) };
        let prev_y = prev_x - prev_k;
        while x > prev_x && y > prev_y {
            ops.push(Op::Keep);
            x -= 1;
            y -= 1;
        }
        if d > 0 {
            ops.push(if x == prev_x { Op::Add } else { Op::Remove });
        }
        x = prev_x;
        y = prev_y;
    }
    ops.reverse();
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_have_no_hunks() {
        assert!(unified("a\nb\n", "a\nb\n").is_empty());
        assert!(unified("", "").is_empty());
    }

    #[test]
    fn changes_additions_and_removals() {
        assert_eq!(
            unified("a\nb\nc\n", "a\nB\nc\n"),
            ["@@ -2 +2 @@", "-b", "+B"]
        );
        assert_eq!(unified("a\nc\n", "a\nb\nc\n"), ["@@ -1,0 +2 @@", "+b"]);
        assert_eq!(unified("a\nb\nc\n", "a\nc\n"), ["@@ -2 +1,0 @@", "-b"]);
        assert_eq!(unified("", "x\ny\n"), ["@@ -0,0 +1,2 @@", "+x", "+y"]);
        assert_eq!(
            unified("a\nb\nc\nd\ne\n", "a\nx\nc\ne\nf\n"),
            [
                "@@ -2 +2 @@",
                "-b",
                "+x",
                "@@ -4 +3,0 @@",
                "-d",
                "@@ -5,0 +5 @@",
                "+f"
            ]
        );
    }

    #[test]
    fn the_script_turns_old_into_new() {
        let old: Vec<String> = (0..200).map(|i| format!("line {}", i * 7 % 31)).collect();
        let new: Vec<String> = (0..180).map(|i| format!("line {}", i * 5 % 29)).collect();
        let (a, b): (Vec<&str>, Vec<&str>) = (
            old.iter().map(String::as_str).collect(),
            new.iter().map(String::as_str).collect(),
        );
        let ops = myers(&a, &b).expect("few enough edits");
        let (mut i, mut j, mut out) = (0, 0, Vec::new());
        for op in ops {
            match op {
                Op::Keep => {
                    assert_eq!(a[i], b[j]);
                    out.push(b[j]);
                    i += 1;
                    j += 1;
                }
                Op::Remove => i += 1,
                Op::Add => {
                    out.push(b[j]);
                    j += 1;
                }
            }
        }
        assert_eq!((i, j), (a.len(), b.len()));
        assert_eq!(out, b);
    }

    #[test]
    fn common_ends_never_overlap() {
        assert_eq!(common_ends(&["a", "b", "c"], &["a", "x", "c"]), (1, 1));
        assert_eq!(common_ends(&["a", "b"], &["a", "b"]), (2, 0));
        // `a a` against `a`: the shared end is counted once, not twice.
        assert_eq!(common_ends(&["a", "a"], &["a"]), (1, 0));
        assert_eq!(common_ends(&[], &["a"]), (0, 0));
    }
}
