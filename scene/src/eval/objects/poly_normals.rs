//! Specified normals of a polygon mesh (Max's `MNNormalSpec`), carried through
//! the poly modifiers with the polygons: an Editable Poly's GeomBuffers
//! (0x0300) or an Edit Poly Attach's mesh hold them. Per polygon corner a pool
//! index, or none where smoothing groups decide; the pool keeps its explicit
//! bits. When the polygons are triangulated each triangle corner takes its
//! polygon corner's index, so the triangle mesh's [`SpecifiedNormals`] (what
//! the exporters read) follows.

use super::specified_normals::SpecifiedNormals;
use crate::eval::error::EvalError;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolyNormals {
    /// The pool, its explicit bits and flags (`faces` unused: the corners
    /// are per polygon, in `faces` here).
    pub pool: SpecifiedNormals,
    /// Per polygon, per corner: the pool index, `None` when not specified.
    pub faces: Vec<Vec<Option<u32>>>,
}

impl PolyNormals {
    /// No normal specified on polygons of the given degrees (the side of an
    /// Attach that carried none).
    pub fn unspecified(degrees: impl IntoIterator<Item = usize>) -> PolyNormals {
        PolyNormals {
            pool: SpecifiedNormals {
                computed: true,
                ..SpecifiedNormals::default()
            },
            faces: degrees.into_iter().map(|d| vec![None; d]).collect(),
        }
    }

    /// Whether any polygon corner is specified.
    pub fn any(&self) -> bool {
        self.faces.iter().flatten().any(Option::is_some)
    }

    /// Appends `other`'s pool and polygons after ours (`MNNormalSpec::operator+=`,
    /// as MNMesh appends an attached mesh's faces): its pool indices move past
    /// our pool. Stored non-explicit normals stay valid only if both were
    /// computed; each side's weighting flag is kept when the other side has no
    /// non-explicit normal to weigh.
    pub fn append(&mut self, other: PolyNormals) -> Result<(), EvalError> {
        let base = u32::try_from(self.pool.normals.len())
            .map_err(|_| EvalError::limit("specified normals", u32::MAX))?;
        let computed_only = |s: &SpecifiedNormals| s.explicit.iter().all(|&e| e);
        if self.pool.face_angles != other.pool.face_angles
            && !computed_only(&self.pool)
            && !computed_only(&other.pool)
        {
            return Err(EvalError::not_evaluated(
                "joining specified normals computed with and without corner-angle weights",
            ));
        }
        if computed_only(&self.pool) {
            self.pool.face_angles = other.pool.face_angles;
        }
        self.pool.computed &= other.pool.computed;
        self.pool.normals.extend(other.pool.normals);
        self.pool.explicit.extend(other.pool.explicit);
        self.faces.extend(
            other
                .faces
                .into_iter()
                .map(|f| f.into_iter().map(|c| c.map(|c| c + base)).collect()),
        );
        Ok(())
    }

    /// Checks the corners against polygons of `degrees` and the pool.
    pub fn validate(&self, degrees: impl ExactSizeIterator<Item = usize>) -> Result<(), EvalError> {
        if self.faces.len() != degrees.len() {
            return Err(EvalError::malformed(
                "specified normals",
                format!(
                    "{} normal faces for {} polygons",
                    self.faces.len(),
                    degrees.len()
                ),
            ));
        }
        let n = self.pool.normals.len();
        if self.pool.explicit.len() != n {
            return Err(EvalError::malformed(
                "specified normals",
                format!("{} explicit bits for {n} normals", self.pool.explicit.len()),
            ));
        }
        for (i, (f, d)) in self.faces.iter().zip(degrees).enumerate() {
            if f.len() != d || f.iter().flatten().any(|&c| c as usize >= n) {
                return Err(EvalError::malformed(
                    format!("specified normals of polygon {i}"),
                    format!("{} corners for a polygon of {d}, pool of {n}", f.len()),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(explicit: bool, computed: bool) -> PolyNormals {
        PolyNormals {
            pool: SpecifiedNormals {
                normals: vec![[0.0, 0.0, 1.0]],
                explicit: vec![explicit],
                computed,
                ..SpecifiedNormals::default()
            },
            faces: vec![vec![Some(0), None, Some(0)]],
        }
    }

    #[test]
    fn appended_pools_shift_the_attached_indices() {
        let mut a = PolyNormals::unspecified([4]);
        a.append(one(true, true)).expect("append");
        a.append(one(false, false)).expect("append");
        assert_eq!(a.pool.normals.len(), 2);
        assert_eq!(a.pool.explicit, [true, false]);
        assert_eq!(
            a.faces,
            [
                vec![None; 4],
                vec![Some(0), None, Some(0)],
                vec![Some(1), None, Some(1)]
            ]
        );
        // The second side's non-explicit normal was not computed: recomputed.
        assert!(!a.pool.computed);
        assert!(a.any() && !PolyNormals::unspecified([3]).any());
        a.validate([4, 3, 3].into_iter()).expect("valid");
        assert!(a.validate([4, 3].into_iter()).is_err());
        assert!(a.validate([4, 4, 3].into_iter()).is_err());
    }

    #[test]
    fn differing_weights_of_computed_normals_are_refused() {
        let mut a = one(false, true);
        let mut b = one(false, true);
        b.pool.face_angles = true;
        assert!(a.clone().append(b.clone()).is_err());
        // Explicit normals are not weighed: no conflict.
        a.pool.explicit = vec![true];
        a.append(b).expect("append");
        assert!(a.pool.face_angles);
    }
}
