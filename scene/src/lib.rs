//! Reading and writing 3ds Max `.max` files.
