//! What FTS5's `bm25()` reads, handed to Rust without its cost: the one module besides
//! `memory.rs` where unsafe code is allowed (`tests/architecture/` fails if another file
//! allows it), since FTS5's API for ranking functions is C's alone.
//!
//! `bm25()` looks up each matching row's length with a statement of its own (a bind, a step
//! and a reset per row): for a word in most pages of a large vault that is three quarters of
//! a search's time (61 ms for 85,000 matches at 100,000 pages, against 15 ms for the rest).
//! Here a ranking function, [`FREQ`], gives each row's weighted count of the query's phrase,
//! the row's length comes from the same table in the same statement (a join on its
//! `_docsize` table, read in rowid order), and [`bm25`] does the arithmetic of FTS5's
//! `bm25()` on them (`ext/fts5/fts5_aux.c`): the same score to the last bit (a test compares
//! them). An expression of more than one phrase gets NULL from [`FREQ`], for the caller to
//! ask `bm25()` itself.

#![allow(unsafe_code)]

use rusqlite::{Connection, ffi};
use std::os::raw::c_int;

/// The ranking function's name: `phrase_freq(table)`, the row's count of the query's one
/// phrase, each occurrence weighted by its column's weight ([`WEIGHTS`]); NULL when the query
/// has more than one phrase.
pub const FREQ: &str = "phrase_freq";
/// `row_count(table)`: the rows in the table, as `bm25()` counts them.
pub const ROWS: &str = "row_count";
/// `token_count(table)`: the tokens of every column of every row, as `bm25()` counts them.
pub const TOKENS: &str = "token_count";

/// The weight of a match in each column of a search table (`title, aliases, tags, headings,
/// body`): a word in the title counts as this many in the body.
pub const WEIGHTS: [f64; 5] = [10.0, 8.0, 5.0, 3.0, 1.0];

/// BM25's parameters, as FTS5's `bm25()` fixes them.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// What a table holds in all, for [`bm25`].
#[derive(Debug, Clone, Copy)]
pub struct Totals {
    /// Rows in the table.
    pub rows: f64,
    /// Tokens in every column of every row.
    pub tokens: f64,
}

/// The score FTS5's `bm25()` gives a row that holds one phrase `freq` times (weighted) and
/// `length` tokens in all, the phrase being in `hits` of the table's rows: negative, lower is
/// better. The operations are `bm25()`'s, in its order, so that the result is the same double.
pub fn bm25(freq: f64, length: f64, hits: f64, totals: Totals) -> f64 {
    let mut idf = ((totals.rows - hits + 0.5) / (hits + 0.5)).ln();
    if idf <= 0.0 {
        idf = 1e-6;
    }
    let avgdl = totals.tokens / totals.rows;
    -(idf * ((freq * (K1 + 1.0)) / (freq + K1 * (1.0 - B + B * length / avgdl))))
}

/// The total of the varints in an FTS5 `_docsize` blob (one per column): the row's length in
/// tokens. FTS5's varints are SQLite's: big-endian groups of 7 bits, each byte but the last
/// with its top bit set, the ninth byte whole.
pub fn length(mut blob: &[u8]) -> u64 {
    let mut total = 0u64;
    while !blob.is_empty() {
        let mut value = 0u64;
        let mut used = 0;
        for (i, &byte) in blob.iter().enumerate().take(9) {
            used = i + 1;
            if i == 8 {
                value = (value << 8) | u64::from(byte);
                break;
            }
            value = (value << 7) | u64::from(byte & 0x7f);
            if byte & 0x80 == 0 {
                break;
            }
        }
        total = total.saturating_add(value);
        blob = &blob[used..];
    }
    total
}

/// Register [`FREQ`], [`ROWS`] and [`TOKENS`] on `conn`. Once per connection.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let api = fts5_api(conn)?;
    for (name, function) in [
        (c"phrase_freq", freq as Function),
        (c"row_count", rows as Function),
        (c"token_count", tokens as Function),
    ] {
        // SAFETY: `api` is the connection's live `fts5_api` (it lives as long as the
        // connection, which outlives this call); `name` is a NUL-terminated static string,
        // which FTS5 copies; `function` has the signature `fts5_extension_function` names;
        // no user data, so nothing to destroy.
        let rc = unsafe {
            let create = (*api)
                .xCreateFunction
                .ok_or(rusqlite::Error::InvalidQuery)?;
            create(
                api,
                name.as_ptr(),
                std::ptr::null_mut(),
                Some(function),
                None,
            )
        };
        if rc != ffi::SQLITE_OK {
            return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), None));
        }
    }
    Ok(())
}

type Function = unsafe extern "C" fn(
    *const ffi::Fts5ExtensionApi,
    *mut ffi::Fts5Context,
    *mut ffi::sqlite3_context,
    c_int,
    *mut *mut ffi::sqlite3_value,
);

/// The connection's FTS5 API, as SQLite hands it out: `SELECT fts5(?1)` with a pointer bound
/// to the first parameter, of the type `fts5_api_ptr`.
fn fts5_api(conn: &Connection) -> rusqlite::Result<*mut ffi::fts5_api> {
    let mut api: *mut ffi::fts5_api = std::ptr::null_mut();
    let mut stmt: *mut ffi::sqlite3_stmt = std::ptr::null_mut();
    // SAFETY: `conn.handle()` is the open connection's handle, used on this thread only
    // while `conn` is borrowed. The statement is prepared, stepped once and finalized here.
    // SQLite writes the API's address into `api`, which outlives the statement; the pointer
    // type's name is a static NUL-terminated string, as `sqlite3_bind_pointer` requires.
    let rc = unsafe {
        let db = conn.handle();
        let mut rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &raw mut stmt,
            std::ptr::null_mut(),
        );
        if rc == ffi::SQLITE_OK {
            rc = ffi::sqlite3_bind_pointer(
                stmt,
                1,
                (&raw mut api).cast(),
                c"fts5_api_ptr".as_ptr(),
                None,
            );
        }
        if rc == ffi::SQLITE_OK {
            rc = ffi::sqlite3_step(stmt);
        }
        ffi::sqlite3_finalize(stmt);
        rc
    };
    if api.is_null() {
        let code = if rc == ffi::SQLITE_ROW {
            ffi::SQLITE_ERROR
        } else {
            rc
        };
        return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(code), None));
    }
    Ok(api)
}

/// `phrase_freq(table)`: see [`FREQ`].
unsafe extern "C" fn freq(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    _n: c_int,
    _args: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 calls this with its API, the current row's context and the result's
    // context, all valid for the call. Each API function is called as `fts5.h` documents,
    // with out-parameters that live on this stack; a column index from `xInst` is checked
    // against the weights before use.
    unsafe {
        let api = &*api;
        let (Some(phrases), Some(count), Some(inst)) =
            (api.xPhraseCount, api.xInstCount, api.xInst)
        else {
            return ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_ERROR);
        };
        if phrases(fts) != 1 {
            return ffi::sqlite3_result_null(ctx);
        }
        let mut n: c_int = 0;
        let rc = count(fts, &raw mut n);
        if rc != ffi::SQLITE_OK {
            return ffi::sqlite3_result_error_code(ctx, rc);
        }
        let mut total = 0.0;
        for i in 0..n {
            let (mut phrase, mut column, mut offset) = (0, 0, 0);
            let rc = inst(fts, i, &raw mut phrase, &raw mut column, &raw mut offset);
            if rc != ffi::SQLITE_OK {
                return ffi::sqlite3_result_error_code(ctx, rc);
            }
            total += usize::try_from(column)
                .ok()
                .and_then(|c| WEIGHTS.get(c))
                .copied()
                .unwrap_or(1.0);
        }
        ffi::sqlite3_result_double(ctx, total);
    }
}

/// `row_count(table)`: see [`ROWS`].
unsafe extern "C" fn rows(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    _n: c_int,
    _args: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: as in `freq`; the count is written to a local of `answer_count`.
    unsafe { answer_count(ctx, |n| (*api).xRowCount.map(|f| f(fts, n))) }
}

/// `token_count(table)`: see [`TOKENS`].
unsafe extern "C" fn tokens(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    _n: c_int,
    _args: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: as in `freq`; column -1 asks for every column, as `fts5.h` documents.
    unsafe { answer_count(ctx, |n| (*api).xColumnTotalSize.map(|f| f(fts, -1, n))) }
}

/// Answer the call of `ctx` with the count `count` writes (an FTS5 API function's
/// out-parameter), or its error: `None` when the API lacks the function.
///
/// # Safety
/// `ctx` is the context of the call being answered.
unsafe fn answer_count(
    ctx: *mut ffi::sqlite3_context,
    count: impl FnOnce(*mut ffi::sqlite3_int64) -> Option<c_int>,
) {
    let mut n: ffi::sqlite3_int64 = 0;
    // SAFETY: `ctx` is valid for the call (the caller's promise).
    unsafe {
        match count(&raw mut n) {
            Some(ffi::SQLITE_OK) => ffi::sqlite3_result_int64(ctx, n),
            Some(rc) => ffi::sqlite3_result_error_code(ctx, rc),
            None => ffi::sqlite3_result_error_code(ctx, ffi::SQLITE_ERROR),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_docsize_blob_is_read_as_fts5_writes_it() {
        assert_eq!(length(&[]), 0);
        assert_eq!(length(&[3, 0, 1, 0, 120]), 124);
        // 300 = 0b10_0101100: two bytes, the first with its top bit set.
        assert_eq!(length(&[0x82, 0x2c, 5]), 305);
        // A truncated varint ends the blob rather than reading past it.
        assert_eq!(length(&[0x82]), 2);
    }
}
