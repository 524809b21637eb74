/// @file
/// Whole-or-nothing output files.
///
/// Every file tilescan writes (images, scenes) goes through here: the body is written to a
/// temporary file in the destination's folder, flushed and fsynced, then renamed over the
/// destination. A reader therefore never sees a half-written file, and a failure (disk full, no
/// permission, an exception from the body) leaves no output and no temporary behind
/// (architecture.md: "nothing is half-written"), and so does an interrupt once
/// remove_temporaries_on_signals is installed. A destination that is a symbolic link is written
/// where the link points; a file being replaced keeps its permission bits.
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>

namespace tilescan {

/// Calls `write_body` with a stream open on a temporary file next to `path`, then makes that file
/// `path`. I/O failures throw InputError("cannot write 'path': reason"); an exception thrown by
/// `write_body` propagates unchanged. Either way nothing is left behind.
void write_file_atomically(const std::string& path, const std::function<void(std::FILE*)>& write_body);

/// Installs handlers for SIGINT, SIGTERM and SIGHUP (those not ignored) that remove the temporaries
/// being written, then end the process by the same signal, so that the shell sees the conventional
/// status (130 for Ctrl-C, 143 for SIGTERM). For programs, not libraries: it takes over those signals.
void remove_temporaries_on_signals();

/// fwrite that reports a short write (disk full, I/O error) at once instead of leaving it for the
/// final flush, so a body writing gigabytes stops at the first failure. Meant for `write_body`:
/// write_file_atomically reports the failure with its path.
void write_bytes(std::FILE* file, const void* data, std::size_t size);

}  // namespace tilescan
