//! The end-to-end tests over the shared corpus, one module per area, built as
//! one test binary (one link instead of one per file). Two stay binaries of
//! their own: scene_mutation installs a counting global allocator and
//! mount_hardening a logger that counts every warning of the process.

mod coverage_table;
mod disk_cache;
mod eval_ase;
mod eval_babylon;
mod eval_biped;
mod eval_biped_motion;
mod eval_bone;
mod eval_boolean;
mod eval_coverage;
mod eval_deform;
mod eval_drops;
mod eval_edit_poly;
mod eval_fbx;
mod eval_fbx_uv;
mod eval_ik_chains;
mod eval_kwxport;
mod eval_materials;
mod eval_mesh_totals;
mod eval_modifiers;
mod eval_pbr_fbx;
mod eval_pegasus;
mod eval_primitives;
mod eval_texture_files;
mod eval_uv;
mod export_anim_frame_rate;
mod export_cli;
mod export_ig;
mod export_ig_lights;
mod export_mrm;
mod export_properties;
mod export_shape;
mod export_shape_uv;
mod export_skel_anim;
mod export_skinned_shape;
mod export_tags;
mod fs_tree;
mod gltf_export;
mod gltf_lights;
mod gltf_pbr;
mod gltf_textures;
mod gltf_uv;
mod gltf_validator;
mod gltf_winding;
mod mount_cache;
mod mount_corpus;
mod nel_formats_synthetic;
mod nel_mutation;
mod nel_roundtrip;
mod scene_corpus;
mod scene_settings;
mod single_eval;
mod stream_isolation;
