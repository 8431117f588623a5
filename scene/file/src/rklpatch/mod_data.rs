//! The local data NeL Edit Patch and NeL Paint keep per modifier application
//! (ModApp 0x2512 → EDITPATCHDATA_CHUNK 0x1000, `SaveLocalData` in
//! nel_patch_edit/np_epm_file.cpp and nel_patch_paint/paint_file.cpp): the
//! flags (EPD_R3_GENERAL_CHUNK 0x1015), the vertex mapper (VERTMAP 0x1130,
//! Edit Patch only), the final patch as `PatchMesh::Save` writes it
//! (FINALPATCH 0x1140: the same chunks as the RklPatch object's own PatchMesh)
//! and as `RPatchMesh::Save` writes it (RFINALPATCH 0x4001: the RPO blob's
//! RPatchMesh without the RPO version word).
//!
//! Read in the order `EditPatchData::Load` / `PaintPatchData::Load` read them
//! (np_edit_patch_data.cpp, paint_data.cpp): the last flags chunk wins, and the
//! pre-release-3 data (the old general chunk 0x1000 and the change records
//! 0x2000-0x20F0, editpat.h l.1065) is named, as Max would replay it.

use crate::chunk::{Body, Chunk};
use crate::error::ChunkPath;
use crate::typed::schema::{Ctx, RKLPATCH_SCHEMA};
use crate::typed::{tree, ClassId};

use super::rpo::{RPatchMesh, RpoBlob, RPO_VERSION};
use super::vert_mapper::{CHUNK_EPVM_DATA, CHUNK_VERTMAP};
use super::{RklPatch, RklPatchError, VertMapper};

/// The NeL Paint modifier (nel_patch_paint/nel_patch_paint.h l.450, OSM).
pub const NEL_PAINT_CLASS: ClassId = ClassId(0x0c49_560f, 0x3c3d_68e7);
/// EPD_GENERAL_CHUNK: the pre-release-3 flags ("Obsolete as of 11/12/98 (r3)").
pub const CHUNK_GENERAL_OLD: u16 = 0x1000;
/// EPD_R3_GENERAL_CHUNK: the flags DWORD.
pub const CHUNK_FLAGS: u16 = 0x1015;
/// FINALPATCH_CHUNK: `finalPatch.Save` (a PatchMesh).
pub const CHUNK_FINAL_PATCH: u16 = 0x1140;
/// RFINALPATCH_CHUNK: `rfinalPatch.Save` (an RPatchMesh).
pub const CHUNK_RFINAL_PATCH: u16 = 0x4001;
/// editpat.h l.1329 / nel_patch_paint.h l.546: the modifier has edited its input.
pub const EPD_HASDATA: u32 = 1 << 2;

/// Which of the two modifiers the data belongs to (their `Load` switches differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchModKind {
    EditPatch,
    Paint,
}

/// The change records `EditPatchData::Load` appends to its replay table (editpat.h
/// l.1065-1088).
const EDIT_PATCH_RECORDS: [(u16, &str); 24] = [
    (0x2000, "ClearPVertSelRecord"),
    (0x2001, "SetPVertSelRecord"),
    (0x2002, "InvertPVertSelRecord"),
    (0x2005, "ClearPEdgeSelRecord"),
    (0x2006, "SetPEdgeSelRecord"),
    (0x2007, "InvertPEdgeSelRecord"),
    (0x2010, "ClearPatchSelRecord"),
    (0x2011, "SetPatchSelRecord"),
    (0x2012, "InvertPatchSelRecord"),
    (0x2020, "PVertSelRecord"),
    (0x2025, "PEdgeSelRecord"),
    (0x2030, "PatchSelRecord"),
    (0x2040, "PVertMoveRecord"),
    (0x2050, "PatchDeleteRecord"),
    (0x2060, "PVertDeleteRecord"),
    (0x2070, "PatchChangeRecord"),
    (0x2080, "PVertChangeRecord"),
    (0x2090, "PatchAddRecord"),
    (0x20A0, "EdgeSubdivideRecord"),
    (0x20B0, "PatchSubdivideRecord"),
    (0x20C0, "PVertWeldRecord"),
    (0x20D0, "PAttachRecord"),
    (0x20E0, "PatchDetachRecord"),
    (0x20F0, "PatchMtlRecord"),
];

/// `PaintPatchData::Load` knows only PATCHCHANGERECORD_CHUNK (paint_data.cpp).
const PAINT_RECORDS: [(u16, &str); 1] = [(0x2070, "PatchChangeRecord")];

/// One application's local data, as read (nothing decoded past the flags until asked).
#[derive(Debug, Clone, Copy)]
pub struct PatchModData<'a> {
    pub kind: PatchModKind,
    /// The last flags chunk read (0 when none: the constructors' value).
    pub flags: u32,
    /// The pre-release-3 data found: the old general chunk and change records, by name.
    old: Option<(u16, &'static str)>,
    vert_map: Option<&'a Chunk>,
    final_patch: Option<&'a Chunk>,
    rfinal_patch: Option<&'a Chunk>,
}

fn payload<'a>(c: &'a Chunk, what: &'static str) -> Result<&'a [u8], RklPatchError> {
    c.payload()
        .ok_or(RklPatchError::Undecoded { id: c.id, what })
}

impl<'a> PatchModData<'a> {
    /// Reads the children of EDITPATCHDATA_CHUNK (0x1000).
    pub fn read(kind: PatchModKind, data: &'a [Chunk]) -> Result<PatchModData<'a>, RklPatchError> {
        let records: &[(u16, &'static str)] = match kind {
            PatchModKind::EditPatch => &EDIT_PATCH_RECORDS,
            PatchModKind::Paint => &PAINT_RECORDS,
        };
        let mut me = PatchModData {
            kind,
            flags: 0,
            old: None,
            vert_map: None,
            final_patch: None,
            rfinal_patch: None,
        };
        for c in data {
            match c.id {
                CHUNK_GENERAL_OLD | CHUNK_FLAGS => {
                    let p = payload(c, "flags")?;
                    let b: [u8; 4] = p.get(..4).and_then(|b| b.try_into().ok()).ok_or(
                        RklPatchError::Undecoded {
                            id: c.id,
                            what: "flags (a DWORD)",
                        },
                    )?;
                    me.flags = u32::from_le_bytes(b);
                    if c.id == CHUNK_GENERAL_OLD {
                        me.old
                            .get_or_insert((c.id, "EPD_GENERAL_CHUNK (pre-release 3)"));
                    }
                }
                CHUNK_VERTMAP if kind == PatchModKind::EditPatch => me.vert_map = Some(c),
                CHUNK_FINAL_PATCH => me.final_patch = Some(c),
                CHUNK_RFINAL_PATCH => me.rfinal_patch = Some(c),
                id => {
                    if let Some(&r) = records.iter().find(|r| r.0 == id) {
                        me.old.get_or_insert(r);
                    }
                }
            }
        }
        Ok(me)
    }

    /// EPD_HASDATA: without it `Apply` passes its input through (and stores it).
    pub fn has_data(&self) -> bool {
        self.flags & EPD_HASDATA != 0
    }

    /// The first pre-release-3 chunk found: `Apply` would replay such data
    /// (`rec->Redo`), which is not done here.
    pub fn old_style(&self) -> Option<RklPatchError> {
        self.old
            .map(|(id, name)| RklPatchError::OldRecord { id, name })
    }

    /// The vertex mapper (Edit Patch); none stored reads as the empty mapper
    /// `EPVertMapper` starts as.
    pub fn vert_mapper(&self) -> Result<VertMapper, RklPatchError> {
        let Some(map) = self.vert_map else {
            return Ok(VertMapper::default());
        };
        let data = map
            .children()
            .iter()
            .find(|c| c.id == CHUNK_EPVM_DATA)
            .ok_or(RklPatchError::Missing {
                id: CHUNK_EPVM_DATA,
                what: "vertex mapper data (EPVM_DATA_CHUNK)",
            })?;
        VertMapper::decode(payload(data, "vertex mapper data")?).map_err(|source| {
            RklPatchError::Read {
                what: "vertex mapper",
                source,
            }
        })
    }

    /// The stored final patch (FINALPATCH + RFINALPATCH) as one checked model,
    /// its PatchMesh read by the RklPatch object's own decoders.
    pub fn final_patch(&self) -> Result<RklPatch, RklPatchError> {
        let fp = self.final_patch.ok_or(RklPatchError::Missing {
            id: CHUNK_FINAL_PATCH,
            what: "final patch (FINALPATCH)",
        })?;
        let rfp = self.rfinal_patch.ok_or(RklPatchError::Missing {
            id: CHUNK_RFINAL_PATCH,
            what: "final RPatchMesh (RFINALPATCH)",
        })?;
        let children = match &fp.body {
            Body::Container(c) => c.as_slice(),
            Body::Leaf(_) => {
                return Err(RklPatchError::Undecoded {
                    id: CHUNK_FINAL_PATCH,
                    what: "final patch (a leaf, not PatchMesh chunks)",
                })
            }
        };
        let mesh = RPatchMesh::decode(payload(rfp, "final RPatchMesh")?).map_err(|source| {
            RklPatchError::Read {
                what: "final RPatchMesh (RFINALPATCH)",
                source,
            }
        })?;
        let mut degraded = Vec::new();
        let nodes = tree::type_chunks(
            children,
            &Ctx::Object(Some(RKLPATCH_SCHEMA)),
            &ChunkPath::default(),
            &mut degraded,
        );
        RklPatch::from_patch_mesh(
            RpoBlob {
                rpo_version: RPO_VERSION,
                mesh,
            },
            &nodes,
        )
    }
}

/// The chunks of a modifier's local data holding `final_patch` (for writers that
/// build synthetic sources): flags, the vertex mapper when given, FINALPATCH,
/// RFINALPATCH, in `Save`'s order.
pub fn local_data_chunks(
    flags: u32,
    mapper: Option<&VertMapper>,
    final_patch: &RklPatch,
) -> Vec<Chunk> {
    let mut out = vec![Chunk::leaf(CHUNK_FLAGS, flags.to_le_bytes().to_vec())];
    if let Some(m) = mapper {
        let mut map = Vec::new();
        m.encode(&mut map);
        out.push(Chunk::container(
            CHUNK_VERTMAP,
            vec![Chunk::leaf(CHUNK_EPVM_DATA, map)],
        ));
    }
    out.push(Chunk::container(
        CHUNK_FINAL_PATCH,
        final_patch
            .patch_mesh_nodes()
            .iter()
            .map(crate::typed::TNode::build)
            .collect(),
    ));
    let mut r = Vec::new();
    final_patch.rpo.mesh.encode(&mut r);
    out.push(Chunk::leaf(CHUNK_RFINAL_PATCH, r));
    out
}
