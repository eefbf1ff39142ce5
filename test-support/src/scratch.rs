//! A folder of a test's own files in the temp directory, removed when the test ends.

use std::path::PathBuf;

/// `mcp-{name}-{pid}` in the temp directory, created now and removed (with what it holds) on drop.
/// `name` tells apart the tests of one process that run side by side.
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// Creates the folder.
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("mcp-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        Scratch { dir }
    }

    /// The path of `file` in the folder (not created).
    pub fn file(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::Scratch;

    #[test]
    fn the_folder_and_its_files_are_gone_once_dropped() {
        let scratch = Scratch::new("scratch-self-test");
        let file = scratch.file("a.txt");
        std::fs::write(&file, "x").unwrap();
        assert!(file.exists());
        drop(scratch);
        assert!(!file.exists());
        assert!(!file.parent().unwrap().exists());
    }
}
