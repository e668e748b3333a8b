#pragma once
// An HDF5 file driver (POSIX, like the default sec2) that keeps a killed writer from damaging
// what an earlier flush made durable.
//
// HDF5 rewrites some metadata in place when it appends: the chunk index's B-tree nodes (a split
// of the root moves its entries to a new node and rewrites the root to point there), object
// headers, the superblock. sec2 writes these in whatever order the metadata cache flushes them
// (by address), so a kill between two writes of one flush could leave a rewritten root pointing
// at a node that never reached the file: every frame it indexed unreadable.
//
// This driver writes at once only bytes that no earlier flush wrote (new nodes, new chunks,
// space past the old end); bytes that overwrite what is on disk are held in memory and written
// at the end of the flush, after everything new (with fdatasync between the two when asked to).
// A kill before that point leaves the file as the last flush left it plus unreferenced new
// bytes; the overwrites themselves only add entries to nodes whose old entries stay as they were
// (the writer asks HDF5 to split right-most B-tree nodes without moving entries). Each overwrite
// goes in page-sized pieces, its last page first: a kill can cut a write between its pages, and
// a node's entry count, at its start, must not name entries that did not reach the file.
#include <hdf5.h>

namespace granray::io {

// Sets `fapl` to use the driver. `sync_before_overwrites`: fdatasync the new bytes before any
// overwrite reaches the file, so the order also holds across a power loss. `dry_run`: the file is
// opened read-only and every write is kept in memory (reads see it): a rehearsal of an append
// that leaves the file as it was.
void use_in_place_last_driver(hid_t fapl, bool sync_before_overwrites, bool dry_run = false);

}  // namespace granray::io
