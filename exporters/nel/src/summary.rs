//! Per-format figures for the `maxfs nel` table.

use super::shape::Shape;
use super::stream::Ptr;
use super::NelFile;

type Row = (String, u32, Vec<(String, u64)>);

pub(super) fn of(f: &NelFile) -> Row {
    match f {
        NelFile::Shape(s) => shape_row(&s.shape),
        NelFile::Animation(a) => (
            "CAnimation".into(),
            a.version,
            vec![c("tracks", a.tracks.len())],
        ),
        NelFile::SkeletonWeight(w) => (
            "CSkeletonWeight".into(),
            w.version,
            vec![c("nodes", w.elements.len())],
        ),
        NelFile::InstanceGroup(g) => (
            "CInstanceGroup".into(),
            g.version,
            vec![
                c("instances", g.instances.len()),
                c(
                    "point_lights",
                    g.point_lights.as_ref().map_or(0, |p| p.lights.len()),
                ),
                c("clusters", g.clusters.len()),
                c("portals", g.portals.len()),
            ],
        ),
        NelFile::Zone(z) => (
            "CZone".into(),
            z.version,
            vec![
                c("patches", z.patches.len()),
                c("border_vertices", z.border_vertices.len()),
                c("tiles", z.patches.iter().map(|p| p.tiles.len()).sum()),
                c(
                    "point_lights",
                    z.point_lights.as_ref().map_or(0, |p| p.lights.len()),
                ),
            ],
        ),
        NelFile::TileBank(b) => (
            "CTileBank".into(),
            b.version,
            vec![
                c("lands", b.lands.len()),
                c("tile_sets", b.tile_sets.len()),
                c("tiles", b.tiles.len()),
            ],
        ),
        NelFile::TileFarBank(b) => (
            "CTileFarBank".into(),
            b.version,
            vec![c("tiles", b.tiles.len())],
        ),
        NelFile::GlobalRetriever(g) => (
            "CGlobalRetriever".into(),
            g.version,
            vec![c("instances", g.instances.len())],
        ),
        NelFile::LigoZone(z) => (
            z.root.name.clone(),
            0,
            vec![c("elements", z.root.children.len())],
        ),
        NelFile::Vegetable(v) => (
            "CVegetableShape".into(),
            v.version,
            vec![
                c("vertices", v.vb.header.num_vertices as usize),
                c("triangles", v.triangle_indices.len() / 3),
            ],
        ),
        NelFile::CollisionMeshBuild(m) => (
            "CCollisionMeshBuild".into(),
            0,
            vec![c("vertices", m.vertices.len()), c("faces", m.faces.len())],
        ),
        NelFile::PrimitiveBlock(b) | NelFile::PrimitiveBlockXml(b) => (
            "CPrimitiveBlock".into(),
            b.version,
            vec![c("primitives", b.primitives.len())],
        ),
        NelFile::LodCharacterShapeBuild(b) => (
            "CLodCharacterShapeBuild".into(),
            b.version,
            vec![
                c("vertices", b.vertices.len()),
                c("triangles", b.triangle_indices.len() / 3),
                c("bones", b.bones_names.len()),
            ],
        ),
        NelFile::LodCharacterShape(l) => (
            "CLodCharacterShape".into(),
            l.version,
            vec![
                c("vertices", l.num_vertices as usize),
                c("triangles", l.num_triangles as usize),
                c("bones", l.bones.len()),
                c("anims", l.anims.len()),
            ],
        ),
    }
}

fn c(name: &str, n: usize) -> (String, u64) {
    (name.to_string(), n as u64)
}

fn shape_row(p: &Ptr<Shape>) -> Row {
    let Some(sh) = p.get() else {
        return ("null".into(), 0, vec![]);
    };
    use super::stream::PolyClass;
    let class = sh.class_name().to_string();
    match sh {
        Shape::CMesh(m) => (
            class,
            m.version,
            vec![
                c("materials", m.materials().len()),
                c(
                    "vertices",
                    m.vbuffer().map_or(0, |v| v.header.num_vertices as usize),
                ),
                c("matrix_blocks", m.matrix_block_count()),
            ],
        ),
        Shape::CMeshMRM(m) => (
            class,
            m.version,
            vec![
                c("materials", m.base.materials.len()),
                c("wedges", m.geom.n_wedges as usize),
                c("lods", m.geom.lods.len()),
            ],
        ),
        Shape::CMeshMRMSkinned(m) => (
            class,
            m.version,
            vec![
                c("materials", m.base.materials.len()),
                c("vertices", m.geom.vbuffer.packed_buffer.len()),
                c("lods", m.geom.lods.len()),
                c("bones", m.geom.bones_name.len()),
            ],
        ),
        Shape::CMeshMultiLod(m) => (
            class,
            m.version,
            vec![
                c("materials", m.base.materials.len()),
                c("slots", m.mesh_vector.len()),
            ],
        ),
        Shape::CSkeletonShape(s) => (
            class,
            s.version,
            vec![
                c("bones", s.bones.len()),
                c("lods", s.lods.as_ref().map_or(0, |l| l.len())),
            ],
        ),
        Shape::CParticleSystemShape(p) => (
            class,
            p.version,
            vec![
                c("proto_bytes", p.proto.0.len()),
                c("classes", p.proto_info.classes.len()),
            ],
        ),
        Shape::CBBClusterShape(b) => (class, b.version, vec![c("lods", b.lods.len())]),
        Shape::CWaterShape(w) => (
            class,
            w.version,
            vec![c("poly_vertices", w.poly.vertices.len())],
        ),
        Shape::CWaveMakerShape(w) => (class, w.version, vec![]),
        Shape::CFlareShape(f) => (
            class,
            f.version,
            vec![c(
                "textured_flares",
                f.flares
                    .iter()
                    .filter(|x| x.texture.get().is_some())
                    .count(),
            )],
        ),
        Shape::CSegRemanenceShape(r) => (
            class,
            r.version,
            vec![
                c("corners", r.corners.len()),
                c("slices", r.num_slices as usize),
            ],
        ),
    }
}
