//! NeL's `CStripifier::optimizeTriangles`: the triangle order of every render
//! pass after `CMeshGeom::build`, chosen greedily for a 10-entry FIFO vertex
//! cache. The order is part of the file, so the greedy choices (including
//! which cache entries count as pushed out) follow NeL's exactly.

use std::collections::VecDeque;

/// `CVertexCache`: a FIFO of vertex ids plus a per-vertex state byte
/// (3 = cached, 1 = cached but temporarily ignored, 0 = not cached).
struct VertexCache {
    state: Vec<u8>,
    fifo: VecDeque<u32>,
}

const EMPTY: u32 = u32::MAX;

impl VertexCache {
    fn new(size: usize, verts: usize) -> VertexCache {
        VertexCache {
            state: vec![0; verts],
            fifo: std::iter::repeat_n(EMPTY, size).collect(),
        }
    }

    fn cached(&self, v: u32) -> bool {
        self.state[v as usize] == 3
    }

    fn touch(&mut self, v: u32) {
        if self.cached(v) {
            return;
        }
        if let Some(out) = self.fifo.pop_front() {
            if out != EMPTY {
                self.state[out as usize] = 0;
            }
        }
        self.state[v as usize] = 3;
        self.fifo.push_back(v);
    }

    fn at(&self, i: usize) -> u32 {
        self.fifo.get(i).copied().unwrap_or(EMPTY)
    }

    fn temp_touch(&mut self, v: u32, in_cache: bool) {
        let s = &mut self.state[v as usize];
        if *s & 1 != 0 {
            if in_cache {
                *s |= 2;
            } else {
                *s &= 1;
            }
        }
    }
}

struct OrderFace {
    v: [u32; 3],
    inserted: bool,
}

impl OrderFace {
    fn misses(&self, c: &VertexCache) -> usize {
        self.v.iter().filter(|&&v| !c.cached(v)).count()
    }
}

fn insert(f: &mut OrderFace, out: &mut Vec<u32>, cache: &mut VertexCache) {
    out.extend_from_slice(&f.v);
    for v in f.v {
        cache.touch(v);
    }
    f.inserted = true;
}

/// NeL's default cache size.
pub const CACHE_SIZE: usize = 10;

/// Reorders a triangle list (indices by three) as NeL does before saving.
/// `look_ahead` adds the cost of faces whose vertices the candidate would push
/// out of the cache (current NeL); the Max-3-era exporter chose by cache
/// misses alone (the street references).
pub fn optimize_triangles(indices: &[u32], cache_size: usize, look_ahead: bool) -> Vec<u32> {
    let mut faces: Vec<OrderFace> = indices
        .chunks_exact(3)
        .map(|t| OrderFace {
            v: [t[0], t[1], t[2]],
            inserted: false,
        })
        .collect();
    let n = faces.len();
    let nverts = indices.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut cache = VertexCache::new(cache_size, nverts);
    // Faces around each vertex, most recently linked first (NeL prepends).
    let mut around: Vec<Vec<usize>> = vec![Vec::new(); nverts];
    for (i, f) in faces.iter().enumerate() {
        for &v in &f.v {
            around[v as usize].push(i);
        }
    }
    for list in around.iter_mut() {
        list.reverse();
    }
    let mut out = Vec::with_capacity(indices.len());
    for i in 0..n {
        let mut next = i;
        let mut found = true;
        while found {
            found = false;
            if faces[next].inserted {
                continue;
            }
            insert(&mut faces[next], &mut out, &mut cache);
            let mut min_cost = 3;
            for j in 0..cache_size {
                let vid = cache.at(j);
                if vid == EMPTY {
                    continue;
                }
                for &fid in &around[vid as usize] {
                    if faces[fid].inserted {
                        continue;
                    }
                    let mut c = faces[fid].misses(&cache);
                    if c == 0 {
                        insert(&mut faces[fid], &mut out, &mut cache);
                        continue;
                    }
                    if !look_ahead {
                        if c < min_cost {
                            next = fid;
                            found = true;
                            min_cost = c;
                        }
                        continue;
                    }
                    // Also count the misses of faces using the vertices this
                    // one would push out (NeL takes them from the FIFO's end).
                    let pushed = cache_size.saturating_sub(c)..cache_size;
                    for k in pushed.clone() {
                        let v = cache.at(k);
                        if v != EMPTY {
                            cache.temp_touch(v, false);
                        }
                    }
                    for k in pushed.clone() {
                        let v = cache.at(k);
                        if v == EMPTY {
                            continue;
                        }
                        for &fo in &around[v as usize] {
                            if !faces[fo].inserted && fo != fid {
                                c += faces[fo].misses(&cache);
                            }
                        }
                    }
                    for k in pushed {
                        let v = cache.at(k);
                        if v != EMPTY {
                            cache.temp_touch(v, true);
                        }
                    }
                    if c < min_cost {
                        next = fid;
                        found = true;
                        min_cost = c;
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_triangle_once() {
        let idx = [0, 1, 2, 2, 3, 0, 4, 5, 6, 6, 7, 4, 0, 4, 7, 7, 3, 0];
        let out = optimize_triangles(&idx, CACHE_SIZE, true);
        assert_eq!(out.len(), idx.len());
        let mut a: Vec<[u32; 3]> = idx.chunks(3).map(|t| [t[0], t[1], t[2]]).collect();
        let mut b: Vec<[u32; 3]> = out.chunks(3).map(|t| [t[0], t[1], t[2]]).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        // A strip-friendly list keeps its order.
        assert_eq!(
            optimize_triangles(&idx[..6], CACHE_SIZE, true),
            idx[..6].to_vec()
        );
    }
}
