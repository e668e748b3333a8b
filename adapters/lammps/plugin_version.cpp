#include "plugin_version.h"

#include <regex>

namespace granray::lammps {

std::optional<LammpsRelease> parse_package_version(const std::string& version) {
  static const std::regex form(R"((\d{4})\.(\d{1,2})\.(\d{1,2})(?:\.(\d+))?)");
  std::smatch m;
  if (!std::regex_match(version, m, form)) return std::nullopt;
  const int month = std::stoi(m[2]);
  const int day = std::stoi(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
  LammpsRelease r;
  r.date = std::stoi(m[1]) * 10000 + month * 100 + day;
  r.update = m[4].matched ? std::stoi(m[4]) : 0;
  return r;
}

LammpsRelease running_release(int date, const char* git_descriptor, int built_update) {
  LammpsRelease r;
  r.date = date;
  r.update = built_update;
  if (git_descriptor == nullptr || *git_descriptor == '\0') return r;
  static const std::regex update(R"(_update(\d+)$)");
  std::cmatch m;
  r.update = std::regex_search(git_descriptor, m, update) ? std::stoi(m[1]) : 0;
  return r;
}

std::string release_name(const LammpsRelease& release) {
  static const char* const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const int year = release.date / 10000;
  const int month = release.date / 100 % 100;
  const int day = release.date % 100;
  std::string name = std::to_string(day) + " " +
                     (month >= 1 && month <= 12 ? months[month - 1] : "?") + " " +
                     std::to_string(year);
  if (release.update > 0) name += " (update " + std::to_string(release.update) + ")";
  return name;
}

std::string mismatch_message(const LammpsRelease& built, const LammpsRelease& running) {
  if (built == running) return "";
  return "granray: libgranraylmp was built for LAMMPS " + release_name(built) +
         " but is loaded into LAMMPS " + release_name(running) +
         "; a plugin's fix must match the LAMMPS that loads it, so fix granray is not "
         "registered. Rebuild granray against this LAMMPS (GRANRAY_LAMMPS_PREFIX).";
}

}  // namespace granray::lammps
