//! Placeholder until the ig builder lands: exports nothing.

use super::{Context, Exports};

pub fn export(_ctx: &Context, _out: &mut Exports) {}
