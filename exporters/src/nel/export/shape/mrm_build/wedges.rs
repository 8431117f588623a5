//! The final wedge list: each LOD's corners use a wedge directly or a geomorph
//! slot blending it toward the wedge it becomes in the next coarser LOD.

use std::collections::HashMap;

use super::*;

/// Hashable identity of a wedge (`CWedge::operator<`; −0 equals +0).
#[derive(PartialEq, Eq, Hash)]
struct WedgeKey(Vec<u32>);

fn wedge_key(w: &Wedge, na: usize, skinned: bool) -> WedgeKey {
    let b = |x: f32| if x == 0.0 { 0 } else { x.to_bits() };
    let mut k: Vec<u32> = w.pos.iter().map(|&x| b(x)).collect();
    for a in &w.attribs[..na] {
        k.extend(a.iter().map(|&x| b(x)));
    }
    if skinned {
        for i in 0..MAX_MATRIX {
            k.push(w.skin.matrix[i]);
            k.push(b(w.skin.weight[i]));
        }
    }
    WedgeKey(k)
}

/// `buildFinalMRM`: unique wedges over all LODs, geomorph slots per LOD.
pub(super) fn final_mesh(levels: &[LevelMesh], na: usize, skinned: bool) -> FinalMesh {
    let mut wedges: Vec<Wedge> = Vec::new();
    let mut ids: HashMap<WedgeKey, usize> = HashMap::new();
    let mut insert = |w: Wedge, wedges: &mut Vec<Wedge>| -> usize {
        let next = wedges.len();
        let id = *ids.entry(wedge_key(&w, na, skinned)).or_insert(next);
        if id == next {
            wedges.push(w);
        }
        id
    };
    let wedge_of = |m: &BaseMesh, c: &Corner| Wedge {
        pos: m
            .vertices
            .get(c.vertex as usize)
            .copied()
            .unwrap_or_default(),
        attribs: std::array::from_fn(|a| {
            if a < na {
                m.attribs[a]
                    .get(c.attribs[a] as usize)
                    .copied()
                    .unwrap_or_default()
            } else {
                [0.0; 4]
            }
        }),
        skin: m
            .skin
            .as_ref()
            .and_then(|s| s.get(c.vertex as usize))
            .copied()
            .unwrap_or_default(),
        n_skin_mat_used: 0,
    };
    // Per LOD, per face corner: (start wedge, end wedge).
    let mut corners: Vec<Vec<[(usize, usize); 3]>> = Vec::with_capacity(levels.len());
    let mut n_wedges: Vec<usize> = Vec::with_capacity(levels.len());
    for (l, level) in levels.iter().enumerate() {
        let prec = &levels[l.saturating_sub(1)].mesh;
        let mut lc = Vec::with_capacity(level.mesh.faces.len());
        for (f, cf) in level.mesh.faces.iter().zip(&level.coarser_faces) {
            let ids3: [(usize, usize); 3] = std::array::from_fn(|k| {
                let start = wedge_of(&level.mesh, &f.corners[k]);
                let end = if l > 0 {
                    wedge_of(prec, &cf.corners[k])
                } else {
                    start
                };
                let s = insert(start, &mut wedges);
                let e = insert(end, &mut wedges);
                (s, e)
            });
            lc.push(ids3);
        }
        corners.push(lc);
        n_wedges.push(wedges.len());
    }
    // Geomorph slots: per LOD, one per distinct (start, end) pair in order.
    let mut slots: Vec<HashMap<(usize, usize), usize>> = Vec::with_capacity(levels.len());
    let mut lists: Vec<Vec<(usize, usize)>> = Vec::with_capacity(levels.len());
    for (l, lc) in corners.iter().enumerate() {
        let mut map = HashMap::new();
        let mut list = Vec::new();
        if l > 0 {
            for c in lc.iter().flatten() {
                if c.0 != c.1 && !map.contains_key(c) {
                    map.insert(*c, list.len());
                    list.push(*c);
                }
            }
        }
        slots.push(map);
        lists.push(list);
    }
    let space = lists.iter().map(Vec::len).max().unwrap_or(0);
    let mut all = vec![Wedge::default(); space];
    all.extend(wedges);
    if skinned {
        for w in all.iter_mut().skip(space) {
            w.n_skin_mat_used = w.skin.weight.iter().take_while(|&&x| x != 0.0).count();
        }
    }
    let s = space as u32;
    let lods = levels
        .iter()
        .enumerate()
        .map(|(l, level)| Lod {
            n_wedges: n_wedges[l] + space,
            faces: level
                .mesh
                .faces
                .iter()
                .zip(&corners[l])
                .map(|(f, c)| {
                    let w = c.map(|(st, en)| {
                        if st != en {
                            slots[l].get(&(st, en)).copied().unwrap_or(0) as u32
                        } else {
                            st as u32 + s
                        }
                    });
                    (f.material, w)
                })
                .collect(),
            geomorphs: lists[l]
                .iter()
                .map(|&(a, b)| (a as u32 + s, b as u32 + s))
                .collect(),
        })
        .collect();
    FinalMesh {
        wedges: all,
        n_geom_space: space,
        lods,
        skinned,
    }
}
