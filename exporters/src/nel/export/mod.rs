//! `.max` → NeL: the rules of the NeL 3ds Max exporter (nel_mesh_lib and the
//! build_gamedata export scripts), applied to the evaluated scene of `maxfs_scene`.
//!
//! One entry point, [`export`], produces every requested kind at once so that
//! the mount, `maxfs cat` and `maxfs export` share one result (and one cache
//! entry) per source file. A node that cannot be exported becomes a
//! [`NodeError`]; the rest of the file still exports.

pub mod anim;
pub mod clod;
pub mod cmb;
pub mod ig;
pub mod ig_fx;
pub mod ig_lights;
mod ig_volume;
pub mod pacs_prim;
pub mod properties;
pub mod select;
pub mod shape;
pub mod shape_anim;
pub mod skel;
pub mod skinning;
pub mod swt;
pub mod veget;
pub mod zone;

use maxfs_scene::eval::SceneEval;
use maxfs_scene::graph::SceneGraph;
use maxfs_scene::Document;

/// The kinds of file the exporter writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ExportKind {
    Shape,
    Ig,
    Skel,
    Anim,
    Swt,
    /// Collision meshes per instance group (rbank's cmb_export.ms).
    Cmb,
    /// PACS primitives of a file (pacs_prim_export.ms), NeL's XML form.
    PacsPrim,
    /// Vegetables (veget_export.ms).
    Veget,
    /// Direct landscape zones (zone_export.ms): one RklPatch node per file.
    Zone,
    /// The shape process's per-node `.anim` of AUTOMATIC_ANIMATION nodes
    /// (shape_export.ms), `<node name>.anim` beside the shapes.
    ShapeAnim,
    /// Character LODs (clodbank's clod_export.ms).
    Clod,
    /// Ligo brick descriptions (nel_ligo_export.ms `NeLLigoExportZone`): the `.ligozone`
    /// of each brick of a `zonematerial-` / `zonespecial-` / `zonetransition-` source.
    LigoZone,
}

impl ExportKind {
    pub const ALL: [ExportKind; 12] = [
        ExportKind::Shape,
        ExportKind::Ig,
        ExportKind::Skel,
        ExportKind::Anim,
        ExportKind::Swt,
        ExportKind::Cmb,
        ExportKind::PacsPrim,
        ExportKind::Veget,
        ExportKind::Zone,
        ExportKind::ShapeAnim,
        ExportKind::Clod,
        ExportKind::LigoZone,
    ];

    /// The name used on the command line (`--kind shape,ig`); the file
    /// extension for every kind but `shape_anim` (whose files are `.anim`).
    pub fn name(self) -> &'static str {
        match self {
            ExportKind::Shape => "shape",
            ExportKind::Ig => "ig",
            ExportKind::Skel => "skel",
            ExportKind::Anim => "anim",
            ExportKind::Swt => "swt",
            ExportKind::Cmb => "cmb",
            ExportKind::PacsPrim => "pacs_prim",
            ExportKind::Veget => "veget",
            ExportKind::Zone => "zone",
            ExportKind::ShapeAnim => "shape_anim",
            ExportKind::Clod => "clod",
            ExportKind::LigoZone => "ligozone",
        }
    }

    pub fn from_name(s: &str) -> Option<ExportKind> {
        ExportKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// Where the file goes inside `foo.max/`: the shape process's outputs
    /// (shapes and their per-node animations) under `shape/`, the rest under
    /// `export/` (design.md).
    pub fn dir(self) -> &'static str {
        match self {
            ExportKind::Shape | ExportKind::ShapeAnim => "shape",
            _ => "export",
        }
    }
}

/// One exported file. `name` is the file name the NeL pipeline would give it
/// (e.g. `box02.shape`), not yet sanitized for use as a path.
#[derive(Debug, Clone)]
pub struct Output {
    pub kind: ExportKind,
    /// A shape of a LOD set with a coarse-mesh member (shape_export.ms
    /// `haveCoarseMesh`): the pipeline writes it to the with-coarse-mesh
    /// directory.
    pub with_coarse_mesh: bool,
    pub name: String,
    pub bytes: Vec<u8>,
}

/// A node (or group) that could not be exported, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeError {
    pub kind: ExportKind,
    pub node: String,
    pub reason: String,
}

/// Everything one source file exports.
#[derive(Debug, Clone, Default)]
pub struct Exports {
    pub outputs: Vec<Output>,
    pub errors: Vec<NodeError>,
}

impl Exports {
    /// `export/errors.txt`: one line per failed node, `kind<TAB>node<TAB>reason`.
    pub fn errors_text(&self) -> String {
        let mut s = String::new();
        for e in &self.errors {
            s.push_str(&format!(
                "{}\t{}\t{}\n",
                e.kind.name(),
                crate::tsv::field(&e.node),
                crate::tsv::field(&e.reason)
            ));
        }
        s
    }

    pub fn push_error(&mut self, kind: ExportKind, node: &str, reason: impl std::fmt::Display) {
        self.errors.push(NodeError {
            kind,
            node: node.to_string(),
            reason: reason.to_string(),
        });
    }
}

/// What every kind's builder needs: the document, its scene graph, the
/// evaluation, and the decoded NeL export properties of each node.
#[derive(Clone)]
pub struct Context<'a> {
    /// The source file name without `.max` (`street` for street.max): the
    /// scripts name per-file outputs after it (`<maxfile>.skel`, `.anim`, `.swt`).
    pub stem: &'a str,
    pub doc: &'a Document,
    pub graph: &'a SceneGraph,
    /// The file's evaluated scene, shared with every other reader of the file.
    pub eval: &'a SceneEval,
    pub props: properties::SceneProperties,
    /// Where `.ps` files are looked for (ig_fx.rs); None: nowhere.
    pub ps_search: Option<crate::gltf::TextureSearch>,
    /// The tile bank zone symmetry / rotation go through (`--bank`); None: such zones
    /// are refused by name.
    pub bank: Option<std::sync::Arc<zone::TileBankFile>>,
    /// Nodes the export sees moved (a transition brick's instance group): see [`Moved`].
    pub moved: Option<Moved>,
}

/// nel_ligo_export.ms `node.transform = buildTransitionMatrixObj node.transform …`: the
/// world TM of each of `nodes` right-multiplied by `by` before the group is exported.
/// The readers of node placement in the instance-group export go through
/// [`Context::world_tm0`], [`Context::object_tm0`] and [`Context::local_tm0`]. The caller
/// refuses groups where a moved node has a moved ancestor (Max carries children along),
/// so a moved node's parent is never moved.
#[derive(Debug, Clone)]
pub struct Moved {
    /// Sorted object indices.
    pub nodes: Vec<usize>,
    /// `copyMt` of the slot (`zone_build::ligo::transition_object_matrix`).
    pub by: zone::rules::Matrix3,
}

/// What an export may read besides the scene.
#[derive(Debug, Clone, Default)]
pub struct ExportOptions {
    /// Particle-system shapes (`.ps`) for the FX instances' cluster test: the
    /// stored path, beside the `.max`, then below these folders.
    pub ps_search: Option<crate::gltf::TextureSearch>,
    /// The ecosystem's small tile bank (`NelSetTileBank`), for zone symmetry / rotation.
    pub bank: Option<std::sync::Arc<zone::TileBankFile>>,
}

impl<'a> Context<'a> {
    pub fn new(stem: &'a str, eval: &'a SceneEval) -> Context<'a> {
        Context {
            stem,
            doc: &eval.doc,
            graph: &eval.graph,
            eval,
            props: properties::SceneProperties::of(&eval.graph),
            ps_search: None,
            bank: None,
            moved: None,
        }
    }

    fn moved_by(&self, node: usize) -> Option<&zone::rules::Matrix3> {
        self.moved
            .as_ref()
            .filter(|m| m.nodes.binary_search(&node).is_ok())
            .map(|m| &m.by)
    }

    /// The node's world TM at time 0 as the export sees it ([`Moved`] applied).
    pub fn world_tm0(&self, node: usize) -> maxfs_scene::eval::Mat43 {
        let w = self.eval.world_tm(node, 0);
        match self.moved_by(node) {
            // `mt * copyMt` in Max's single precision.
            Some(by) => {
                let m = zone::ligo::mul3(&zone::matrix3(&w), by);
                maxfs_scene::eval::Mat43(m.map(maxfs_scene::eval::Vec3::from_f32))
            }
            None => w,
        }
    }

    /// The node's mesh at time 0, its modifier stack applied; a node whose
    /// object gives no mesh is refused by name.
    pub fn mesh0(
        &self,
        node: usize,
    ) -> crate::error::ExportResult<std::sync::Arc<maxfs_scene::eval::objects::mesh::Mesh>> {
        match self.eval.mesh(node, 0) {
            Some(Ok(m)) => Ok(m),
            Some(Err(e)) => Err(e.into()),
            None => Err(crate::error::ExportError::refused(
                "object is not a mesh this exporter can evaluate",
            )),
        }
    }

    /// offset · [`world_tm0`](Self::world_tm0): where the object's vertices go.
    pub fn object_tm0(&self, node: usize) -> maxfs_scene::eval::Mat43 {
        self.eval.offset_tm(node).then(&self.world_tm0(node))
    }

    /// The parent-relative TM at time 0: a moved node's is its moved world TM times its
    /// (unmoved) parent's inverse world TM, as Max keeps it after `node.transform =`.
    pub fn local_tm0(&self, node: usize) -> maxfs_scene::eval::Mat43 {
        if self.moved_by(node).is_none() {
            return self.eval.local_tm(node, 0);
        }
        let w = self.world_tm0(node);
        let parent = self
            .graph
            .objects
            .get(node)
            .and_then(|o| o.node.as_ref()?.parent)
            .map(|p| p as usize)
            .filter(|&p| p != node && self.graph.objects.get(p).is_some_and(|o| o.node.is_some()));
        match parent {
            Some(p) => w.then(&maxfs_scene::eval::core::transform::invert(
                &self.world_tm0(p),
            )),
            None => w,
        }
    }
}

/// Exports `kinds` from one document whose file is `<stem>.max`. Outputs come
/// in a stable order: by kind, then in the order the export scripts visit nodes.
pub fn export(stem: &str, eval: &SceneEval, kinds: &[ExportKind]) -> Exports {
    export_with(stem, eval, kinds, &ExportOptions::default())
}

/// [`export`] with the files it may read (`.ps` shapes).
pub fn export_with(
    stem: &str,
    eval: &SceneEval,
    kinds: &[ExportKind],
    options: &ExportOptions,
) -> Exports {
    let mut out = Exports::default();
    let mut ctx = Context::new(stem, eval);
    ctx.ps_search = options.ps_search.clone();
    ctx.bank = options.bank.clone();
    let mut kinds = kinds.to_vec();
    kinds.sort();
    kinds.dedup();
    let zone_kind = kinds.contains(&ExportKind::Zone);
    let ligozone_kind = kinds.contains(&ExportKind::LigoZone);
    for kind in kinds {
        match kind {
            ExportKind::Shape => shape::export(&ctx, &mut out),
            ExportKind::Ig => ig::export(&ctx, &mut out),
            ExportKind::Skel => skel::export(&ctx, &mut out),
            ExportKind::Anim => anim::export(&ctx, &mut out),
            ExportKind::Swt => swt::export(&ctx, &mut out),
            ExportKind::Cmb => cmb::export(&ctx, &mut out),
            ExportKind::PacsPrim => pacs_prim::export(&ctx, &mut out),
            ExportKind::Veget => veget::export(&ctx, &mut out),
            ExportKind::Clod => clod::export(&ctx, &mut out),
            ExportKind::Zone => zone::export(&ctx, &mut out, true, ligozone_kind),
            // With `zone` asked too, the bricks were exported there.
            ExportKind::LigoZone if zone_kind => {}
            ExportKind::LigoZone => zone::export(&ctx, &mut out, false, true),
            ExportKind::ShapeAnim => shape_anim::export(&ctx, &mut out),
        }
    }
    out
}
