//! `materials.json`, `cameras.json`, `lights.json`: JSON-ready summaries of
//! the evaluated materials, texmaps, cameras and lights, in object order
//! (deterministic). View shapes live here, not in the evaluation.

use serde::Serialize;

use maxfs_scene::eval::render::camera::{self, Camera};
use maxfs_scene::eval::render::light::{self, Light};
use maxfs_scene::eval::render::material::{self, Assets, Material, Texmap};
use maxfs_scene::eval::SceneEval;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapSummary {
    pub slot: String,
    pub texmap: usize,
    pub class: String,
    /// File name (last path component) of a bitmap texmap.
    pub file: Option<String>,
    pub enabled: Option<bool>,
    pub amount: Option<f32>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MaterialSummary {
    pub index: usize,
    pub name: String,
    pub class: String,
    /// Names of the nodes using this material directly (reference slot 3).
    pub nodes: Vec<String>,
    pub shader: Option<String>,
    pub ambient: Option<[f32; 3]>,
    pub diffuse: Option<[f32; 3]>,
    pub specular: Option<[f32; 3]>,
    pub self_illum_color: Option<[f32; 3]>,
    pub self_illum_amount: Option<f32>,
    pub glossiness: Option<f32>,
    pub specular_level: Option<f32>,
    pub opacity: Option<f32>,
    pub two_sided: Option<bool>,
    /// Physical Material values (also for the PBR materials delegating to it).
    pub pbr: Option<maxfs_scene::eval::render::physical::Pbr>,
    pub maps: Vec<MapSummary>,
    pub sub_materials: Vec<Option<usize>>,
    /// Double Sided: facing and back materials, their switches, translucency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub double_sided: Option<material::DoubleSided>,
    /// Parameter blocks of other material classes, by name.
    pub blocks: Vec<String>,
    pub errors: Vec<String>,
    /// Set but not carried by the exports (see `Material::unmapped`).
    pub unmapped: Vec<String>,
}

fn summary(eval: &SceneEval, m: Material, assets: &Assets) -> MaterialSummary {
    let nodes = eval
        .graph
        .nodes()
        .filter(|(o, _)| material::node_material(&eval.graph, o.index) == Some(m.index))
        .map(|(_, n)| n.name.clone())
        .collect();
    let maps = m
        .maps
        .iter()
        .map(|r| {
            let t = material::texmap(eval, r.texmap, assets);
            MapSummary {
                slot: r.slot.clone(),
                texmap: r.texmap,
                class: t.as_ref().map(|t| t.class.clone()).unwrap_or_default(),
                file: t
                    .as_ref()
                    .and_then(|t| t.file.as_deref())
                    .map(|f| material::file_base(f).to_string()),
                enabled: r.enabled,
                amount: r.amount,
            }
        })
        .collect();
    MaterialSummary {
        index: m.index,
        name: m.name,
        class: m.class,
        nodes,
        shader: m.shader,
        ambient: m.ambient,
        diffuse: m.diffuse,
        specular: m.specular,
        self_illum_color: m.self_illum_color,
        self_illum_amount: m.self_illum_amount,
        glossiness: m.glossiness,
        specular_level: m.specular_level,
        opacity: m.opacity,
        two_sided: m.two_sided,
        pbr: m.pbr,
        maps,
        sub_materials: m.sub_materials,
        double_sided: m.double_sided,
        blocks: m
            .blocks
            .iter()
            .map(|b| format!("{} ({} parameters)", b.name, b.block.params.len()))
            .collect(),
        errors: m.errors,
        unmapped: m.unmapped,
    }
}

/// Every material of the scene; bitmap paths stored as asset GUIDs (Max 2015+)
/// stay unresolved — use `materials_with_assets`.
pub fn materials(eval: &SceneEval) -> Vec<MaterialSummary> {
    materials_with_assets(eval, &Assets::default())
}

/// Every material, resolving bitmap asset GUIDs through `assets`
/// (`Assets::of(&doc)`).
pub fn materials_with_assets(eval: &SceneEval, assets: &Assets) -> Vec<MaterialSummary> {
    (0..eval.graph.objects.len())
        .filter_map(|i| material::material(eval, i))
        .map(|m| summary(eval, m, assets))
        .collect()
}

/// Every texmap.
pub fn texmaps(eval: &SceneEval, assets: &Assets) -> Vec<Texmap> {
    (0..eval.graph.objects.len())
        .filter_map(|i| material::texmap(eval, i, assets))
        .collect()
}

pub fn cameras(eval: &SceneEval) -> Vec<Camera> {
    (0..eval.graph.objects.len())
        .filter_map(|i| camera::camera(eval, i))
        .collect()
}

pub fn lights(eval: &SceneEval) -> Vec<Light> {
    (0..eval.graph.objects.len())
        .filter_map(|i| light::light(eval, i))
        .collect()
}
