//! Only the lines that moved are set in place.

use super::*;

#[test]
fn only_moved_lines_are_updated_in_place() {
    let row = |line: i64, t: &str| (line, t.to_string());
    let line = |r: &(i64, String)| r.0;
    let same = |a: &(i64, String), b: &(i64, String)| a.1 == b.1;
    let old = [row(3, "A"), row(5, "B")];
    assert_eq!(moved_lines(&old, &old, line, same), Some(vec![]));
    assert_eq!(
        moved_lines(&old, &[row(3, "A"), row(9, "B")], line, same),
        Some(vec![(1, 9)])
    );
    assert_eq!(
        moved_lines(&old, &[row(3, "A"), row(5, "C")], line, same),
        None
    );
    assert_eq!(moved_lines(&old, &[row(3, "A")], line, same), None);
}
