// Contact dumps (contract 2g): LIGGGHTS compute pair/gran/local and LAMMPS compute pair/local with
// property/local patom1 patom2, read as `dump local` writes them and matched to the grains of the
// same step; every mistake named with its file, line and column.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "granray/errors.h"
#include "granray/io/contact_file.h"
#include "granray/io/particle_file.h"
#include "test_support.h"

namespace granray::test {
namespace {

std::string dump_local(std::int64_t step, const std::string& names,
                       const std::vector<std::string>& rows) {
  std::string text = "ITEM: TIMESTEP\n" + std::to_string(step) + "\nITEM: NUMBER OF ENTRIES\n" +
                     std::to_string(rows.size()) +
                     "\nITEM: BOX BOUNDS pp pp pp\n0 1\n0 1\n0 1\nITEM: ENTRIES " + names + "\n";
  for (const auto& r : rows) text += r + "\n";
  return text;
}

std::string particles_dump(std::int64_t step, const std::vector<std::string>& rows) {
  std::string text = "ITEM: TIMESTEP\n" + std::to_string(step) + "\nITEM: NUMBER OF ATOMS\n" +
                     std::to_string(rows.size()) +
                     "\nITEM: BOX BOUNDS pp pp pp\n0 9\n0 9\n0 9\nITEM: ATOMS id x y z radius\n";
  for (const auto& r : rows) text += r + "\n";
  return text;
}

TEST(ContactFile, LayoutsOfLiggghtsAndLammpsComputes) {
  const io::ContactLayout liggghts = io::parse_contact_layout("pos id force");
  EXPECT_EQ(liggghts.columns, 12u);
  EXPECT_EQ(liggghts.first, 6);
  EXPECT_EQ(liggghts.second, 7);
  EXPECT_EQ(liggghts.periodic, 8);
  EXPECT_EQ(liggghts.value, 9);
  EXPECT_EQ(liggghts.value_width, 3);
  const io::ContactLayout normal = io::parse_contact_layout("id force_normal delta");
  EXPECT_EQ(normal.columns, 7u);
  EXPECT_EQ(normal.value, 3);
  EXPECT_EQ(normal.value_name, "force_normal");
  const io::ContactLayout lammps = io::parse_contact_layout("patom1 patom2 force");
  EXPECT_EQ(lammps.columns, 3u);
  EXPECT_EQ(lammps.value, 2);
  EXPECT_EQ(lammps.value_width, 1);
  const io::ContactLayout components = io::parse_contact_layout("patom1 patom2 p1 fx fy fz");
  EXPECT_EQ(components.value, 3) << "fx fy fz before a lone value";
  EXPECT_EQ(components.value_width, 3);
  expect_error_saying<ConfigError>([] { io::parse_contact_layout("pos id forces"); },
                                   {"unknown keyword \"forces\"", "pair/gran/local"});
  expect_error_saying<ConfigError>([] { io::parse_contact_layout("pos force"); }, {"no grain ids"});
  expect_error_saying<ConfigError>([] { io::parse_contact_layout("id history"); }, {"history"});
  expect_error_saying<ConfigError>([] { io::parse_contact_layout("patom1 patom2"); },
                                   {"no value per pair"});
}

// Random pairs among random grains, written and read back, matched to the grains by id.
TEST(ContactFile, RandomPairsMatchTheirGrains) {
  Rng rng(fresh_seed());
  const int grains = 60;
  std::vector<std::string> rows;
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < grains; ++i) {
    ids.push_back(1000 + 7 * i + rng() % 5);
    rows.push_back(std::to_string(ids.back()) + " " + std::to_string(uniform(rng, 0, 9)) + " " +
                   std::to_string(uniform(rng, 0, 9)) + " " + std::to_string(uniform(rng, 0, 9)) +
                   " 0.5");
  }
  const auto particles =
      io::read_particle_file(write_text("contacts-grains.dump", particles_dump(40, rows)));
  std::vector<std::string> pairs;
  std::vector<int> first, second;
  std::vector<double> force;
  for (int k = 0; k < 150; ++k) {
    first.push_back(int(rng() % grains));
    second.push_back(int(rng() % grains));
    const double fx = uniform(rng, -2, 2), fy = uniform(rng, -2, 2), fz = uniform(rng, -2, 2);
    force.push_back(std::sqrt(fx * fx + fy * fy + fz * fz));
    pairs.push_back("0 0 0 0 0 0 " + std::to_string(ids[first.back()]) + " " +
                    std::to_string(ids[second.back()]) + " " + std::to_string(rng() % 2) + " " +
                    std::to_string(fx) + " " + std::to_string(fy) + " " + std::to_string(fz));
  }
  std::string names;
  for (int c = 1; c <= 12; ++c) names += "c_cpl[" + std::to_string(c) + "] ";
  const std::string path =
      write_text("contacts-random.local", dump_local(40, names, pairs) + dump_local(50, names, {}));
  const auto frames = io::read_contact_file(path, io::parse_contact_layout("pos id force"));
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].step, 40);
  EXPECT_TRUE(frames[1].first.empty());
  const io::ContactIndices matched = io::match_contacts(frames[0], particles[0], "grains");
  ASSERT_EQ(matched.first.size(), 150u);
  for (int k = 0; k < 150; ++k) {
    EXPECT_EQ(matched.first[k], std::uint32_t(first[k]));
    EXPECT_EQ(matched.second[k], std::uint32_t(second[k]));
    // std::to_string keeps six decimals: the length of the written components.
    EXPECT_NEAR(matched.value[k], force[k], 2e-5);
  }
  // The snapshot of another step is refused, naming both.
  expect_input_error([&] { io::match_contacts(frames[1], particles[0], "grains"); },
                     {"contacts-random.local", "step 50", "grains holds step 40"});
}

TEST(ContactFile, MistakesNameTheFileLineAndColumn) {
  const auto layout = io::parse_contact_layout("patom1 patom2 force");
  const auto read = [&](const std::string& name, const std::string& text) {
    return [=] { io::read_contact_file(write_text(name, text), layout); };
  };
  expect_input_error(read("c1.local", dump_local(1, "c_1[1] c_1[2]", {"1 2"})),
                     {"c1.local:9", "names 2 columns", "describe 3"});
  expect_input_error(read("c2.local", dump_local(1, "a b c", {"1 2 3", "1 2"})),
                     {"c2.local:11", "2 columns, expected 3"});
  expect_input_error(read("c3.local", dump_local(1, "a b c", {"1 x 3"})), {"c3.local:10"});
  expect_input_error(read("c4.local", dump_local(1, "a b c", {"1 0 3"})),
                     {"c4.local:10", "column 2", "not positive"});
  // pair/local's force is signed (negative: the pair attracts): its magnitude is the value; a
  // negative value of another column is a mistake.
  const auto signed_force =
      io::read_contact_file(write_text("c5f.local", dump_local(1, "a b c", {"1 2 -3"})), layout);
  EXPECT_FLOAT_EQ(signed_force[0].value[0], 3.0f);
  expect_input_error(
      [] {
        io::read_contact_file(write_text("c5.local", dump_local(1, "a b c", {"1 2 -3"})),
                              io::parse_contact_layout("patom1 patom2 p1"));
      },
      {"c5.local:10", "column 3", "p1"});
  expect_input_error(read("c6.local", "ITEM: TIMESTEP\n1\nITEM: NUMBER OF ENTRIES\n2\n"),
                     {"c6.local"});
  expect_input_error(read("c7.local", "1 2 3\n"), {"c7.local:1", "ITEM: TIMESTEP"});
  // An id the snapshot lacks: the contact file's line of that pair.
  const auto grains = io::read_particle_file(
      write_text("c-grains.dump", particles_dump(1, {"1 0 0 0 0.5", "2 1 0 0 0.5"})));
  const auto frames = io::read_contact_file(
      write_text("c8.local", dump_local(1, "a b c", {"1 2 3", "2 9 1"})), layout);
  expect_input_error([&] { io::match_contacts(frames[0], grains[0], "c-grains.dump"); },
                     {"c8.local:11", "grain id 9", "second grain", "c-grains.dump"});
}

// A snapshot before the first grain (LAMMPS's step 0 of a pour): no pairs, no ids, no error.
TEST(ContactFile, AnEmptySnapshotMatchesNoPairs) {
  const auto grains =
      io::read_particle_file(write_text("empty-grains.dump", particles_dump(0, {})));
  const auto frames = io::read_contact_file(write_text("empty.local", dump_local(0, "a b c", {})),
                                            io::parse_contact_layout("patom1 patom2 force"));
  ASSERT_EQ(frames.size(), 1u);
  const io::ContactIndices none = io::match_contacts(frames[0], grains[0], "empty-grains.dump");
  EXPECT_TRUE(none.first.empty());
  // Pairs against grains without ids are still refused.
  const auto pairs =
      io::read_contact_file(write_text("one.local", dump_local(0, "a b c", {"1 2 3"})),
                            io::parse_contact_layout("patom1 patom2 force"));
  expect_input_error([&] { io::match_contacts(pairs[0], grains[0], "empty-grains.dump"); },
                     {"empty-grains.dump", "no ids"});
}

// The LIGGGHTS pour's 45,000 contacts at step 20,000 (../shared/data: pos id force), matched to
// the snapshot of that step: every pair's centres are its grains' centres, and touching grains
// are no farther apart than their radii allow.
TEST(ContactFile, TheLiggghtsPoursContacts) {
  const std::string contacts_gz = shared_data("liggghts/pour-20k.step20000.contacts.gz");
  const std::string grains_gz = shared_data("liggghts/pour-20k.step20000.liggghts.gz");
  if (contacts_gz.empty() || grains_gz.empty()) GTEST_SKIP() << "no ../shared/data";
  const std::string contacts = temp_path("pour-20k.contacts"), grains = temp_path("pour-20k.dump");
  ASSERT_EQ(std::system(("gzip -dc '" + contacts_gz + "' > '" + contacts + "'").c_str()), 0);
  ASSERT_EQ(std::system(("gzip -dc '" + grains_gz + "' > '" + grains + "'").c_str()), 0);
  const auto particles = io::read_particle_file(grains);
  const auto frames = io::read_contact_file(contacts, io::parse_contact_layout("pos id force"));
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].step, 20000);
  EXPECT_EQ(frames[0].first.size(), 45223u);
  const io::ContactIndices matched = io::match_contacts(frames[0], particles[0], grains);
  // The pos columns, read again here, against the matched grains' centres.
  std::ifstream text(contacts);
  std::string line;
  for (int k = 0; k < 9; ++k) std::getline(text, line);
  for (std::size_t k = 0; k < matched.first.size(); ++k) {
    double p[6];
    for (double& v : p) text >> v;
    std::getline(text, line);
    const Vec4 a = particles[0].xyzr[matched.first[k]], b = particles[0].xyzr[matched.second[k]];
    ASSERT_NEAR(a.x, p[0], 1e-6) << "pair " << k;
    ASSERT_NEAR(b.z, p[5], 1e-6) << "pair " << k;
    const double gap = std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) +
                                 (a.z - b.z) * (a.z - b.z));
    ASSERT_LE(gap, (a.w + b.w) * 1.0001) << "pair " << k << ": grains in contact overlap";
    ASSERT_GE(matched.value[k], 0.0f);
  }
}

}  // namespace
}  // namespace granray::test
