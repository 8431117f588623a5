//! The Sunlight and Daylight systems of `lights.json` (key `sun_systems`):
//! each master's place, date and time parameters as stored, the nodes it
//! drives, and the local time and sun altitude/azimuth at the start of the
//! animation range.

use serde::Serialize;

use maxfs_scene::eval::systems::sunlight::{self, SunState};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::settings::{time_config, TimeConfig};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SunSystemView {
    pub index: usize,
    pub class: String,
    pub city: Option<String>,
    /// The Compass helper: its rotation is the north direction.
    pub compass: Option<String>,
    /// The nodes whose transform controller is one of its slaves.
    pub lights: Vec<String>,
    pub block_version: Option<u32>,
    /// Day number (Julian date − 1721424.5) the date counts from.
    pub epoch: Option<i32>,
    /// Date and time interpolated as one value (no chunk 0x00F0).
    pub old_animation: Option<bool>,
    pub parameters: Option<Parameters>,
    /// The tick `at_start` is taken at (start of the animation range).
    pub tick: i32,
    pub at_start: Option<SunState>,
    pub error: Option<String>,
}

/// As stored: each `{"constant": v}` or `{"controller": object}`.
pub use sunlight::SunParams as Parameters;

fn node_name(eval: &SceneEval, idx: usize) -> Option<String> {
    eval.graph
        .objects
        .get(idx)?
        .node
        .as_ref()
        .map(|n| n.name.clone())
}

/// Every SunMaster of the scene, in object order.
pub fn sun_systems(eval: &SceneEval) -> Vec<SunSystemView> {
    let tick = time_config(&eval.doc).unwrap_or(TimeConfig::DEFAULT).start;
    (0..eval.graph.objects.len())
        .filter(|&i| sunlight::is_master(eval, i))
        .map(|i| {
            let lights = eval
                .graph
                .nodes()
                .filter(|(o, _)| {
                    eval.tm_controller(o.index).is_some_and(|c| {
                        sunlight::is_slave(eval, c)
                            && maxfs_scene::eval::core::pblock::reference(&eval.graph, c, 0)
                                == Some(i)
                    })
                })
                .map(|(_, n)| n.name.clone())
                .collect();
            let class = eval
                .graph
                .class(i)
                .map_or_else(String::new, |c| c.name.clone());
            match sunlight::system(eval, i) {
                Ok(s) => {
                    let state = s.state(eval, tick);
                    SunSystemView {
                        index: i,
                        class,
                        city: s.city.clone(),
                        compass: s.compass.and_then(|c| node_name(eval, c)),
                        lights,
                        block_version: Some(s.block_version),
                        epoch: Some(s.epoch),
                        old_animation: Some(s.old_animation),
                        parameters: Some(s.params),
                        tick,
                        error: state.as_ref().err().map(|e| e.to_string()),
                        at_start: state.ok(),
                    }
                }
                Err(e) => SunSystemView {
                    index: i,
                    class,
                    city: None,
                    compass: None,
                    lights,
                    block_version: None,
                    epoch: None,
                    old_animation: None,
                    parameters: None,
                    tick,
                    at_start: None,
                    error: Some(e.to_string()),
                },
            }
        })
        .collect()
}
