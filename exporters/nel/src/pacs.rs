//! PACS: `.gr` (`CGlobalRetriever`): retriever instances, links and exterior edge quads.

use serde::Serialize;

use super::stream::{opt, AaBox, Serial, Stream, Vec3};
use super::NelError;
use crate::{nel_struct, nel_versioned};

nel_struct!(
    /// `CRetrieverInstance::CLink`.
    Link { instance: u16, border_chain_id: u16, chain_id: u16, surface_id: u16 }
);
nel_struct!(
    /// `CSurfaceIdent`.
    SurfaceIdent { retriever_instance_id: i32, surface_id: i32 }
);
nel_struct!(
    /// `CExteriorEdgeEntry`.
    ExteriorEdgeEntry { edge_id: u16, chain_id: u16, interior: SurfaceIdent, exterior: SurfaceIdent }
);

/// `CEdgeQuad`: a grid of edge lists, stored as a u16 data block plus cell offsets.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EdgeQuad {
    pub version: u32,
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub quad_data_len: u32,
    pub edge_entries: Vec<ExteriorEdgeEntry>,
    /// The data block as 16-bit words (`quad_data_len / 2` of them).
    pub quad_data: Vec<u16>,
    /// Byte offset into the data block of each cell, 0xFFFFFFFF for empty cells.
    pub quad: Vec<u32>,
}

impl Serial for EdgeQuad {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 0, "CEdgeQuad")?;
        s.ser(&mut self.x)?;
        s.ser(&mut self.y)?;
        s.ser(&mut self.width)?;
        s.ser(&mut self.height)?;
        s.ser(&mut self.quad_data_len)?;
        s.field("edge_entries", &mut self.edge_entries)?;
        s.vec_n(&mut self.quad_data, (self.quad_data_len / 2) as usize)?;
        s.field("quad", &mut self.quad)
    }
}

/// `CRetrieverInstance`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RetrieverInstance {
    pub version: u32,
    pub instance_id: i32,
    pub retriever_id: i32,
    pub orientation: u8,
    pub origin: Vec3,
    pub neighbors: Vec<i32>,
    pub border_chain_links: Vec<Link>,
    pub bbox: AaBox,
    pub total_nodes: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retriever_type: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exterior_edge_quad: Option<EdgeQuad>,
}

impl Serial for RetrieverInstance {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CRetrieverInstance")?;
        s.ser(&mut self.instance_id)?;
        s.ser(&mut self.retriever_id)?;
        s.ser(&mut self.orientation)?;
        s.ser(&mut self.origin)?;
        s.field("neighbors", &mut self.neighbors)?;
        s.field("border_chain_links", &mut self.border_chain_links)?;
        s.ser(&mut self.bbox)?;
        s.ser(&mut self.total_nodes)?;
        opt(s, &mut self.retriever_type, self.version >= 1)?;
        opt(s, &mut self.exterior_edge_quad, self.version >= 1)
    }
}

nel_versioned!(
    /// `CGlobalRetriever`.
    GlobalRetriever(0) { instances: Vec<RetrieverInstance>, bbox: AaBox }
);
