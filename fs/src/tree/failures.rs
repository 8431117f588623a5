//! `foo.max/error.txt`: every stage of the file that failed — the container,
//! reading the streams, a stream's chunk tree, the typed layer, the scene
//! graph, the evaluation — one line each, so a file that opened but cannot be
//! shown whole says why instead of serving empty views.

use super::*;

impl MaxFs {
    /// The failed stages of `state`'s file, in stage order; empty when every
    /// stage built. Builds the stages it checks (they are cached as usual), so
    /// listing `foo.max/` parses the file: whether `error.txt` exists depends on it.
    pub(super) fn stage_errors(&self, state: &MaxState) -> Vec<String> {
        if let Err(e) = state.light() {
            return vec![format!("container: cannot open the compound file: {e}")];
        }
        let loaded = match self.load(state) {
            Ok(l) => l,
            Err(e) => return vec![format!("streams: cannot read the streams: {e}")],
        };
        let mut out: Vec<String> = loaded
            .file
            .failed_streams()
            .map(|(name, why)| format!("stream {name}: {why}"))
            .collect();
        let doc = match loaded.doc() {
            Ok(d) => d,
            Err(e) => {
                out.push(format!("chunk trees: {e}"));
                return out;
            }
        };
        for (s, file) in doc.streams.iter().zip(&loaded.file.streams) {
            if let Layout::Raw(Some(e)) = &s.layout {
                // Failed streams are listed above; other streams (property
                // sets) are raw by nature.
                if file.error.is_none() && crate::views::info::CHUNKED.contains(&s.name.as_str()) {
                    out.push(format!("stream {}: not a chunk tree: {e}", s.name));
                }
            }
        }
        match loaded.typed() {
            Err(e) => {
                out.push(format!("typed layer: {e}"));
                return out;
            }
            Ok(t) => {
                if let Err(e) = &t.scene {
                    out.push(format!("scene graph: {e}"));
                }
            }
        }
        if let Err(e) = loaded.eval() {
            out.push(format!("evaluation: {e}"));
        }
        out
    }
}
