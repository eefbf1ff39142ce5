//! trybuild UI tests live in tests/.
