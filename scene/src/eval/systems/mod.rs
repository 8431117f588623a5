//! System plug-ins whose master object drives the transforms of the nodes it
//! created: the Sunlight and Daylight systems.

pub mod solar;
pub mod sunlight;
