#include "in_place_last_driver.h"

#if __has_include(<H5FDdevelop.h>)
#include <H5FDdevelop.h>  // HDF5 >= 1.13: the driver class lives here
#endif
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "granray/errors.h"

namespace granray::io {
namespace {

struct DriverConfig {
  hbool_t sync_before_overwrites;
  hbool_t dry_run;
};

struct ByteRange {
  haddr_t begin, end;
};

struct HeldOverwrite {
  haddr_t addr;
  std::vector<unsigned char> bytes;
};

// HDF5 sees the public H5FD_t at the start; the rest is ours.
struct DriverFile {
  H5FD_t pub;
  int fd = -1;
  dev_t device = 0;
  ino_t inode = 0;
  haddr_t eoa = 0, eof = 0;
  bool sync_before_overwrites = false;
  bool dry_run = false;                  // every write held in memory, none reaches the file
  bool write_failed = false;             // since the last commit: drop what is held
  std::map<haddr_t, haddr_t> committed;  // byte ranges written before the last commit
  std::vector<ByteRange> fresh;          // written since the last commit, all outside it
  std::vector<HeldOverwrite> held;       // overwrites of committed bytes, in arrival order
};

DriverFile* as_file(H5FD_t* f) { return reinterpret_cast<DriverFile*>(f); }
const DriverFile* as_file(const H5FD_t* f) { return reinterpret_cast<const DriverFile*>(f); }

herr_t fail(const char* function, H5E_minor_t minor, const std::string& what) {
  H5Epush2(H5E_DEFAULT, __FILE__, function, __LINE__, H5E_ERR_CLS, H5E_VFL, minor, "%s",
           what.c_str());
  return -1;
}

bool write_all(int fd, haddr_t addr, const unsigned char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, data, size, off_t(addr));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    addr += haddr_t(n);
    size -= std::size_t(n);
  }
  return true;
}

// An overwrite in page-sized pieces, the last page first. A kill lands between the pages of a
// write (the kernel checks for one there), and a node's header (a B-tree node's entry count)
// sits at its start: written last, the count never names entries whose bytes are not yet in.
bool write_last_page_first(int fd, haddr_t addr, const unsigned char* data, std::size_t size) {
  constexpr haddr_t kPage = 4096;
  for (haddr_t end = addr + size; end > addr;) {
    const haddr_t begin = std::max(addr, (end - 1) / kPage * kPage);
    if (!write_all(fd, begin, data + (begin - addr), std::size_t(end - begin))) return false;
    end = begin;
  }
  return true;
}

// Overlapping held overwrites all carry the newest bytes, so the order they are written in never
// changes what the file ends up holding.
void hold(DriverFile& f, haddr_t addr, const unsigned char* data, std::size_t size) {
  const haddr_t end = addr + size;
  for (HeldOverwrite& w : f.held) {
    const haddr_t begin = std::max(addr, w.addr), stop = std::min(end, w.addr + w.bytes.size());
    if (begin < stop)
      std::memcpy(w.bytes.data() + (begin - w.addr), data + (begin - addr), stop - begin);
  }
  f.held.push_back({addr, std::vector<unsigned char>(data, data + size)});
}

// The order the held overwrites go in. The superblock first: its end-of-allocation grows to cover
// the new bytes (already in the file), which old metadata never minds but new metadata needs.
// Then version-1 B-tree nodes ("TREE", type, level), the higher level first: a parent that
// already names a split's new node while its old child still holds every entry indexes the same
// chunks at every moment. Anything else (object headers, rewritten chunks) after.
int write_order(const HeldOverwrite& w) {
  static const unsigned char kSuperblock[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  if (w.addr == 0 && w.bytes.size() >= 8 && std::memcmp(w.bytes.data(), kSuperblock, 8) == 0) {
    return 0;
  }
  if (w.bytes.size() >= 8 && std::memcmp(w.bytes.data(), "TREE", 4) == 0) return 256 - w.bytes[5];
  return 1000;
}

void add_range(std::map<haddr_t, haddr_t>& ranges, haddr_t begin, haddr_t end) {
  auto it = ranges.upper_bound(begin);
  if (it != ranges.begin() && std::prev(it)->second >= begin) {
    --it;
    begin = it->first;
  }
  while (it != ranges.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = ranges.erase(it);
  }
  ranges.emplace(begin, end);
}

// Writes what is held (after the fresh bytes, synced first when asked) and folds everything
// written since the last commit into the committed ranges.
herr_t commit(DriverFile& f, const char* function) {
  if (f.dry_run) return 0;  // what is held stays held, and reads keep seeing it
  if (f.write_failed) {
    // Part of this flush never reached the file: its overwrites would point the old metadata at
    // it. Dropping them leaves the file as the last commit left it.
    f.held.clear();
    f.fresh.clear();
    f.write_failed = false;
    return fail(function, H5E_WRITEERROR, "a write of this flush failed; its overwrites dropped");
  }
  if (!f.held.empty() && f.sync_before_overwrites && ::fdatasync(f.fd) != 0) {
    f.write_failed = true;
    return commit(f, function);
  }
  std::stable_sort(f.held.begin(), f.held.end(),
                   [](const HeldOverwrite& a, const HeldOverwrite& b) {
                     return write_order(a) < write_order(b);
                   });
  for (const HeldOverwrite& w : f.held) {
    if (!write_last_page_first(f.fd, w.addr, w.bytes.data(), w.bytes.size())) {
      f.held.clear();
      f.fresh.clear();
      return fail(function, H5E_WRITEERROR,
                  std::string("overwrite failed: ") + std::strerror(errno));
    }
    add_range(f.committed, w.addr, w.addr + w.bytes.size());
  }
  for (const ByteRange& r : f.fresh) add_range(f.committed, r.begin, r.end);
  f.held.clear();
  f.fresh.clear();
  return 0;
}

H5FD_t* open_file(const char* name, unsigned flags, hid_t fapl, haddr_t maxaddr) {
  const auto* config = static_cast<const DriverConfig*>(H5Pget_driver_info(fapl));
  const bool dry_run = config != nullptr && config->dry_run;
  int oflags = (flags & H5F_ACC_RDWR) && !dry_run ? O_RDWR : O_RDONLY;
  if (flags & H5F_ACC_TRUNC) oflags |= O_TRUNC;
  if (flags & H5F_ACC_CREAT) oflags |= O_CREAT;
  if (flags & H5F_ACC_EXCL) oflags |= O_EXCL;
  const int fd = ::open(name, oflags | O_CLOEXEC, 0666);
  if (fd < 0) {
    fail(__func__, H5E_CANTOPENFILE, std::string(name) + ": " + std::strerror(errno));
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    fail(__func__, H5E_BADFILE, std::string(name) + ": " + std::strerror(errno));
    ::close(fd);
    return nullptr;
  }
  auto file = std::make_unique<DriverFile>();
  std::memset(&file->pub, 0, sizeof file->pub);
  file->pub.maxaddr = maxaddr;
  file->fd = fd;
  file->device = st.st_dev;
  file->inode = st.st_ino;
  file->eof = haddr_t(st.st_size);
  if (file->eof > 0) file->committed.emplace(0, file->eof);
  if (config != nullptr) file->sync_before_overwrites = config->sync_before_overwrites;
  file->dry_run = dry_run;
  return &file.release()->pub;
}

herr_t close_file(H5FD_t* handle) {
  std::unique_ptr<DriverFile> f(as_file(handle));
  const herr_t committed = commit(*f, __func__);
  if (::close(f->fd) != 0) return fail(__func__, H5E_CANTCLOSEFILE, std::strerror(errno));
  return committed;
}

int compare(const H5FD_t* a, const H5FD_t* b) {
  const DriverFile &x = *as_file(a), &y = *as_file(b);
  if (x.device != y.device) return x.device < y.device ? -1 : 1;
  if (x.inode != y.inode) return x.inode < y.inode ? -1 : 1;
  return 0;
}

// sec2's features but one: no metadata accumulator, which would merge neighbouring entries (an
// object header and a B-tree node, say) into one write that write_order could not rank.
herr_t query(const H5FD_t*, unsigned long* flags) {
  if (flags != nullptr) {
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_DATA_SIEVE | H5FD_FEAT_AGGREGATE_SMALLDATA |
             H5FD_FEAT_POSIX_COMPAT_HANDLE;
  }
  return 0;
}

haddr_t get_eoa(const H5FD_t* f, H5FD_mem_t) { return as_file(f)->eoa; }
herr_t set_eoa(H5FD_t* f, H5FD_mem_t, haddr_t addr) {
  as_file(f)->eoa = addr;
  return 0;
}
haddr_t get_eof(const H5FD_t* f, H5FD_mem_t) { return as_file(f)->eof; }

herr_t get_handle(H5FD_t* f, hid_t, void** handle) {
  *handle = &as_file(f)->fd;
  return 0;
}

herr_t read_bytes(H5FD_t* handle, H5FD_mem_t, hid_t, haddr_t addr, size_t size, void* buffer) {
  DriverFile& f = *as_file(handle);
  // As HDF5's own drivers do: nothing is read beyond the space the file has allocated. A damaged
  // file's sizes (a local heap of gigabytes) then fail here instead of being allocated and read.
  if (addr > f.eoa || size > f.eoa - addr) {
    return fail(__func__, H5E_OVERFLOW, "read beyond the end of the allocated space");
  }
  auto* out = static_cast<unsigned char*>(buffer);
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::pread(f.fd, out + done, size - done, off_t(addr + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(__func__, H5E_READERROR, std::strerror(errno));
    if (n == 0) {  // past the end of the file: HDF5 expects zeros
      std::memset(out + done, 0, size - done);
      break;
    }
    done += std::size_t(n);
  }
  for (const HeldOverwrite& w : f.held) {  // held bytes are newer than the file's
    const haddr_t begin = std::max(addr, w.addr);
    const haddr_t end = std::min(addr + size, w.addr + w.bytes.size());
    if (begin < end)
      std::memcpy(out + (begin - addr), w.bytes.data() + (begin - w.addr), end - begin);
  }
  return 0;
}

herr_t write_bytes(H5FD_t* handle, H5FD_mem_t, hid_t, haddr_t addr, size_t size,
                   const void* buffer) {
  DriverFile& f = *as_file(handle);
  const auto* data = static_cast<const unsigned char*>(buffer);
  const haddr_t end = addr + size;
  if (f.dry_run) {
    hold(f, addr, data, size);
    f.eof = std::max(f.eof, end);
    return 0;
  }
  auto write_fresh = [&](haddr_t b, haddr_t e) -> bool {
    if (b >= e) return true;
    if (!write_all(f.fd, b, data + (b - addr), std::size_t(e - b))) {
      f.write_failed = true;
      return false;
    }
    f.fresh.push_back({b, e});
    f.eof = std::max(f.eof, e);
    return true;
  };
  auto it = f.committed.upper_bound(addr);
  if (it != f.committed.begin() && std::prev(it)->second > addr) --it;
  haddr_t at = addr;
  for (; it != f.committed.end() && it->first < end; ++it) {
    const haddr_t held_begin = std::max(at, it->first), held_end = std::min(end, it->second);
    if (!write_fresh(at, held_begin)) break;
    hold(f, held_begin, data + (held_begin - addr), std::size_t(held_end - held_begin));
    at = held_end;
  }
  if (!f.write_failed) write_fresh(at, end);
  if (f.write_failed) return fail(__func__, H5E_WRITEERROR, std::strerror(errno));
  return 0;
}

herr_t flush_file(H5FD_t* f, hid_t, hbool_t) { return commit(*as_file(f), __func__); }

herr_t truncate_file(H5FD_t* handle, hid_t, hbool_t) {
  DriverFile& f = *as_file(handle);
  if (f.eoa == f.eof) return 0;
  if (f.dry_run) {
    f.eof = f.eoa;
    return 0;
  }
  if (f.eoa < f.eof) {
    // Cutting the file may remove what the committed metadata points to until the held
    // overwrites are in: those go first.
    if (commit(f, __func__) < 0) return -1;
    f.committed.erase(f.committed.lower_bound(f.eoa), f.committed.end());
    if (!f.committed.empty() && std::prev(f.committed.end())->second > f.eoa) {
      std::prev(f.committed.end())->second = f.eoa;
    }
  }
  if (::ftruncate(f.fd, off_t(f.eoa)) != 0) {
    f.write_failed = true;
    return fail(__func__, H5E_SEEKERROR, std::strerror(errno));
  }
  f.eof = f.eoa;
  return 0;
}

herr_t lock_file(H5FD_t* f, hbool_t rw) {
  rw = rw && !as_file(f)->dry_run;
  if (::flock(as_file(f)->fd, (rw ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 && errno != ENOSYS) {
    return fail(__func__, H5E_CANTLOCKFILE, std::strerror(errno));
  }
  return 0;
}

herr_t unlock_file(H5FD_t* f) {
  if (::flock(as_file(f)->fd, LOCK_UN) != 0 && errno != ENOSYS) {
    return fail(__func__, H5E_CANTUNLOCKFILE, std::strerror(errno));
  }
  return 0;
}

H5FD_class_t driver_class() {
  H5FD_class_t c;
  std::memset(&c, 0, sizeof c);
#if H5_VERSION_GE(1, 13, 2)
  c.version = H5FD_CLASS_VERSION;
#endif
#if H5_VERSION_GE(1, 12, 0)
  c.value = H5FD_class_value_t(423);  // in the range HDF5 leaves to applications
#endif
  c.name = "granray_in_place_last";
  c.maxaddr = haddr_t((std::uint64_t(1) << 62) - 1);
  c.fc_degree = H5F_CLOSE_WEAK;
  c.fapl_size = sizeof(DriverConfig);
  c.open = open_file;
  c.close = close_file;
  c.cmp = compare;
  c.query = query;
  c.get_eoa = get_eoa;
  c.set_eoa = set_eoa;
  c.get_eof = get_eof;
  c.get_handle = get_handle;
  c.read = read_bytes;
  c.write = write_bytes;
  c.flush = flush_file;
  c.truncate = truncate_file;
  c.lock = lock_file;
  c.unlock = unlock_file;
  const H5FD_mem_t dichotomy[H5FD_MEM_NTYPES] = H5FD_FLMAP_DICHOTOMY;
  std::copy(dichotomy, dichotomy + H5FD_MEM_NTYPES, c.fl_map);
  return c;
}

}  // namespace

void use_in_place_last_driver(hid_t fapl, bool sync_before_overwrites, bool dry_run) {
  static const H5FD_class_t cls = driver_class();
  static const hid_t id = H5FDregister(&cls);
  if (id < 0) throw OutputError("cannot register granray's HDF5 file driver");
  const DriverConfig config{sync_before_overwrites, dry_run};
  if (H5Pset_driver(fapl, id, &config) < 0) {
    throw OutputError("cannot set granray's HDF5 file driver on a file access list");
  }
}

}  // namespace granray::io
