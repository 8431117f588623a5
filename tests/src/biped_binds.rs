//! The Skin bones of a scene that are Biped bones, or Link-Constrained to
//! one, with the initial TM the Skin stored: the in-file oracle the Biped
//! tests and the `biped_bind_check` example compare figure-mode TMs with.

use maxfs_scene::eval::rigs::biped::{Bone, Rig};
use maxfs_scene::eval::{modifier::skin, rigs::link_constraint};
use maxfs_scene::eval::{Mat43, SceneEval};

/// One skinned bone driven by a Biped bone.
pub struct SkinnedBipedBone<'r> {
    pub rig: &'r Rig,
    pub bone: &'r Bone,
    /// The Link Constraint's offset (identity for the Biped bone itself).
    pub offset: Mat43,
    /// The Skin's stored initial TM of the skinned bone.
    pub init: Mat43,
    /// Whether the skinned bone is linked to the Biped bone.
    pub linked: bool,
}

/// Every Skin bone of `eval` with a stored initial TM: the ones a Biped bone
/// of `rigs` drives, and how many others (neither a Biped bone nor linked
/// to one) there are.
pub fn skinned_biped_bones<'r>(
    eval: &SceneEval,
    rigs: &'r [Rig],
) -> (Vec<SkinnedBipedBone<'r>>, usize) {
    let find = |n: usize| {
        rigs.iter()
            .find_map(|r| r.bones.iter().find(|b| b.node == n).map(|b| (r, b)))
    };
    let (mut found, mut other) = (Vec::new(), 0);
    for (o, _) in eval.graph.nodes() {
        let Some(Ok(sk)) = skin::node_skin(eval, o.index) else {
            continue;
        };
        for b in &sk.bones {
            let (Some(node), Some(init)) = (b.node, b.init_tm) else {
                continue;
            };
            let link = eval
                .tm_controller(node)
                .and_then(|c| link_constraint::decode(eval, c))
                .and_then(Result::ok);
            let driven = match (find(node), link) {
                (Some(rb), _) => Some((rb, Mat43::IDENTITY, false)),
                (None, Some(l)) => l.target.and_then(find).map(|rb| {
                    let offset = link_constraint::offset_tm(eval, &l, 0).expect("PRS offset");
                    (rb, offset, true)
                }),
                (None, None) => None,
            };
            match driven {
                Some(((rig, bone), offset, linked)) => found.push(SkinnedBipedBone {
                    rig,
                    bone,
                    offset,
                    init,
                    linked,
                }),
                None => other += 1,
            }
        }
    }
    (found, other)
}
