//! Which nodes each export script visits, in which order, under which names.
//! Placeholder until node selection lands.
