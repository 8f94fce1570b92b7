//! Many paths held in one buffer. A scan holds a path for every file of the vault twice (the
//! walk's list and the manifest's rows): as owned strings that was an allocation per path, with
//! its own header and rounding (a warm scan at 100,000 pages peaked 12 MB higher). Here the
//! text of every path is one `String` and their ends one vector.

/// Paths by position, in the order they were pushed.
#[derive(Debug, Default, Clone)]
pub struct PathList {
    text: String,
    ends: Vec<usize>,
}

impl PathList {
    /// Room for `n` paths of a typical length.
    pub fn with_capacity(n: usize) -> PathList {
        PathList {
            text: String::with_capacity(n.saturating_mul(48)),
            ends: Vec::with_capacity(n),
        }
    }

    /// Add a path; its position is [`PathList::len`] before the call.
    pub fn push(&mut self, path: &str) {
        self.text.push_str(path);
        self.ends.push(self.text.len());
    }

    /// The path at position `i`.
    ///
    /// # Panics
    /// When `i` is not below [`PathList::len`].
    pub fn get(&self, i: usize) -> &str {
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1],
        };
        &self.text[start..self.ends[i]]
    }

    /// How many paths it holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Every path, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_come_back_whole_in_order() {
        let mut list = PathList::with_capacity(1);
        assert!(list.is_empty());
        for p in ["a.md", "", "wiki/ü/B c.md", "a.md"] {
            list.push(p);
        }
        assert_eq!(list.len(), 4);
        assert_eq!(list.get(0), "a.md");
        assert_eq!(list.get(1), "", "an empty path is a path");
        assert_eq!(list.get(2), "wiki/ü/B c.md");
        assert_eq!(
            list.iter().collect::<Vec<_>>(),
            ["a.md", "", "wiki/ü/B c.md", "a.md"]
        );
    }
}
