//! `publish` (issue 53, under way): the wiki as a static website and as llms.txt, private by
//! default. Only the choice of what is published is built so far ([`select`]); the writers come
//! next, over the renderer the viewer uses ([`crate::render`]).

pub mod search;
pub mod select;
