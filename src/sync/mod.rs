//! `sync`: many devices, one vault, over git. The sync operation will live here; for now it
//! holds the merge rules of Sparks' own files, which the git merge driver uses too.

pub mod rules;
