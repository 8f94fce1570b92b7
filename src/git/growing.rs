//! libgit2 hashes a work-tree file in the size it found a moment before and fails when the file
//! grows meanwhile (an editor or a phone app appending to the inbox): the steps that hash work-tree
//! files are run again while that is why they failed.

/// How many times a file is hashed again while it grows under libgit2.
pub(super) const ADD_TRIES: usize = 5;

/// Run `hash` (a step of libgit2's that hashes work-tree files: adding one, or a status) until
/// it succeeds, fails otherwise than on a file that grew, or has been tried [`ADD_TRIES`]
/// times. libgit2 hashes a file in the size it found a moment before and fails when an editor
/// or a phone app appends to it meanwhile: a sync, or the snapshot a prepare takes, would stop
/// on that with an error that says nothing; the append is taken whole by the next try.
pub(super) fn again_while_growing<T>(
    mut hash: impl FnMut() -> Result<T, git2::Error>,
) -> Result<T, git2::Error> {
    let mut tries = 1;
    loop {
        match hash() {
            Err(e) if tries < ADD_TRIES && grew(&e) => tries += 1,
            other => return other,
        }
    }
}

/// Whether libgit2 failed because the file it hashed was longer than it had found: adding it
/// (`write_file_stream` in its `blob.c`), or hashing it for a status (`git_odb__hashfd` in its
/// `odb.c`, whose byte count runs past the size it was given). The OS error it appends is
/// stale, often empty.
fn grew(e: &git2::Error) -> bool {
    e.class() == git2::ErrorClass::Os
        && (e.message().starts_with("failed to read file into stream")
            || e.message().starts_with("error reading file for hashing"))
}
