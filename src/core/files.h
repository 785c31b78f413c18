// Reading and writing files with errors that name the file and the cause.
// Writes are atomic: data goes to a temporary file in the same folder, is flushed to disk, and is
// renamed over the target, so an interrupted command never leaves a half-written file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace pcglab {

// The whole file as bytes. Throws InputError("cannot read <path>: <cause>").
std::string read_file(const std::filesystem::path& path);

// Replaces `path` with `data` atomically, creating parent folders. Throws SetupError on failure;
// on failure the previous contents of `path`, if any, are untouched and no temporary is left.
void write_file_atomic(const std::filesystem::path& path, std::string_view data);

// write_file_atomic unless `path` already holds exactly `data` (then nothing is written: no fsync,
// the modification time kept). Returns whether it wrote. For files rebuilt on every run.
bool write_file_if_changed(const std::filesystem::path& path, std::string_view data);

// The temporary name used while writing `path` (exposed for tests of interrupted writes).
std::filesystem::path temp_path_for(const std::filesystem::path& path);

// True for write_file_atomic's unfinished temporaries (named .<name>.pcglab-tmp-<pid>-<n>): never
// a finished file, so listings skip them.
bool is_temporary_file(const std::filesystem::path& path);
// Removes temporaries left in `dir` by writers that were killed (files named *.pcglab-tmp-*).
int remove_stale_temporaries(const std::filesystem::path& dir);
// Removes the temporaries directly in `dir` whose writer (the pid in their name) is no longer
// running: safe while other processes write there. Returns how many it removed.
int remove_dead_writers_temporaries(const std::filesystem::path& dir);

}  // namespace pcglab
