//! The file layer's T1/T2/container gates, plus the coverage pass that needs the
//! evaluated scene (`maxfs check --coverage`).

use std::sync::Arc;

pub use maxfs_file::check::*;
use maxfs_file::{Document, Typed};

/// What the evaluated scene does not compute, one line per gap; plugged into
/// [`CheckOptions::coverage`] so the file layer never depends on evaluation.
pub fn coverage(doc: Arc<Document>, typed: Arc<Typed>) -> Vec<String> {
    match crate::eval::SceneEval::new(doc, typed) {
        Ok(eval) => crate::eval::core::coverage::scene_gaps(&eval)
            .iter()
            .map(|g| g.summary())
            .collect(),
        Err(_) => Vec::new(),
    }
}
