// Images streamed a band of rows at a time (posters): PNGs whose rows are deflated in pieces on
// every core and joined into one zlib stream read back (libpng, which checks every CRC and the
// stream's Adler-32) as exactly the pixels written; PPM likewise; an unfinished image leaves no
// file; too many or too few rows are errors naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "granray/errors.h"
#include "granray/io/image_file.h"
#include "granray/io/image_stream.h"
#include "test_support.h"

namespace granray::test {
namespace {

// Noise, flat runs and smooth ramps: every deflate path (literals, matches, stored blocks).
Image random_picture(Rng& rng, int width, int height) {
  Image image;
  image.width = width;
  image.height = height;
  image.rgb.resize(std::size_t(width) * height * 3);
  const int kind = static_cast<int>(rng() % 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      std::uint8_t* p = &image.rgb[3 * (std::size_t(y) * width + x)];
      for (int c = 0; c < 3; ++c) {
        if (kind == 0) {
          p[c] = static_cast<std::uint8_t>(rng());
        } else if (kind == 1) {
          p[c] = (x / 17 + y / 13) % 3 == 0 ? static_cast<std::uint8_t>(rng()) : 255;
        } else {
          p[c] = static_cast<std::uint8_t>((x * (c + 1) + y * 3) % 256);
        }
      }
    }
  }
  return image;
}

void stream_in_bands(Rng& rng, const Image& image, const std::string& path, int level) {
  auto stream = io::open_image_stream(path, image.width, image.height, level);
  int row = 0;
  while (row < image.height) {
    const int rows = std::min(image.height - row,
                              std::uniform_int_distribution<int>(0, image.height / 3 + 1)(rng));
    stream->write_rows(image.rgb.data() + std::size_t(row) * image.width * 3, rows);
    row += rows;
    EXPECT_FALSE(std::filesystem::exists(path)) << "visible before it is finished";
  }
  EXPECT_EQ(stream->rows_written(), image.height);
  stream->finish();
}

Image read_ppm(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string magic;
  Image image;
  int max = 0;
  in >> magic >> image.width >> image.height >> max;
  in.get();
  image.rgb.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  EXPECT_EQ(magic, "P6");
  EXPECT_EQ(max, 255);
  return image;
}

TEST(ImageStream, PngRowsInBandsReadBackExactly) {
  Rng rng(fresh_seed());
  for (int round = 0; round < 12; ++round) {
    // Some images span many 1 MiB pieces; some are a single row or column.
    const int width = round == 0 ? 1 : std::uniform_int_distribution<int>(1, 1500)(rng);
    const int height = round == 1 ? 1 : std::uniform_int_distribution<int>(1, 1200)(rng);
    const Image image = random_picture(rng, width, height);
    const int level = static_cast<int>(rng() % 10);
    const std::string path = temp_path("stream_" + std::to_string(round) + ".png");
    stream_in_bands(rng, image, path, level);
    const Image back = io::read_png(path);
    ASSERT_EQ(back.width, width);
    ASSERT_EQ(back.height, height);
    EXPECT_TRUE(back.rgb == image.rgb)
        << "round " << round << ": " << width << " x " << height << ", level " << level;
    std::filesystem::remove(path);
  }
}

TEST(ImageStream, PpmRowsInBandsReadBackExactly) {
  Rng rng(fresh_seed());
  const Image image = random_picture(rng, std::uniform_int_distribution<int>(1, 400)(rng),
                                     std::uniform_int_distribution<int>(1, 300)(rng));
  const std::string path = temp_path("stream.ppm");
  stream_in_bands(rng, image, path, 1);
  const Image back = read_ppm(path);
  EXPECT_EQ(back.width, image.width);
  EXPECT_EQ(back.height, image.height);
  EXPECT_TRUE(back.rgb == image.rgb);
  std::filesystem::remove(path);
}

TEST(ImageStream, WrongRowCountsAreErrorsAndLeaveNoFile) {
  Rng rng(fresh_seed());
  const Image image = random_picture(rng, 64, 40);
  const std::string path = temp_path("unfinished.png");
  {
    auto stream = io::open_image_stream(path, 64, 40);
    stream->write_rows(image.rgb.data(), 30);
    try {
      stream->write_rows(image.rgb.data(), 11);
      ADD_FAILURE() << "41 rows of a 40-row image were taken";
    } catch (const OutputError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    try {
      stream->finish();
      ADD_FAILURE() << "finished after 30 of 40 rows";
    } catch (const OutputError& e) {
      EXPECT_NE(std::string(e.what()).find("30 of its 40 rows"), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".part"));
  EXPECT_THROW(io::open_image_stream(temp_path("no/such/dir/x.png"), 8, 8), OutputError);
  EXPECT_THROW(io::open_image_stream(temp_path("x.tif"), 8, 8), OutputError);
}

}  // namespace
}  // namespace granray::test
