// Redis's geohash arithmetic. Every expected value comes from redis-server 7.0.15 (GEOADD's
// scores, GEOPOS, GEOHASH, GEODIST) or from Redis's own geohash.c, geohash_helper.c and
// pqsort.c compiled as they are.
#include "storage/geohash.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace warden::storage {
namespace {

// How GEOPOS prints a coordinate (%.17Lf without trailing zeros).
std::string Human(double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17Lf", static_cast<long double>(value));
  std::string s(buf);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string Distance(double value) {
  char buf[32];
  return std::string(FormatGeoDistance(value, buf));
}

std::string Hash(GeoCoord coord) {
  char text[11];
  GeohashText(coord, text);
  return std::string(text, sizeof(text));
}

struct ScoreCase {
  double longitude;
  double latitude;
  std::uint64_t score;
};

class GeoScoreTest : public testing::TestWithParam<ScoreCase> {};

TEST_P(GeoScoreTest, MatchesGeoaddScore) {
  EXPECT_EQ(GeoScoreOf(GetParam().longitude, GetParam().latitude), GetParam().score);
}

INSTANTIATE_TEST_SUITE_P(RedisValues, GeoScoreTest,
                         testing::Values(ScoreCase{13.361389, 38.115556, 3479099956230698},
                                         ScoreCase{15.087269, 37.502669, 3479447370796909},
                                         ScoreCase{0, 0, 3377699720527872},
                                         ScoreCase{-180, 0, 1125899906842624},
                                         // The upper limits carry a 27th bit per axis.
                                         ScoreCase{180, 0, 10133099161583616},
                                         ScoreCase{180, 85.05112878, 13510798882111488},
                                         ScoreCase{-180, -85.05112878, 0}));

TEST(GeohashTest, DecodesScoreToCellCentre) {
  const GeoCoord palermo = GeoDecodeScore(3479099956230698);
  EXPECT_EQ(Human(palermo.longitude), "13.36138933897018433");
  EXPECT_EQ(Human(palermo.latitude), "38.11555639549629859");
  const GeoCoord origin = GeoDecodeScore(3377699720527872);
  EXPECT_EQ(Human(origin.longitude), "0.00000268220901489");
  EXPECT_EQ(Human(origin.latitude), "0.00000126736058093");
}

TEST(GeohashTest, DecodeClampsToLimits) {
  const GeoCoord ne = GeoDecodeScore(13510798882111488);
  EXPECT_EQ(Human(ne.longitude), "180");
  EXPECT_EQ(Human(ne.latitude), "85.0511287799999991");
  const GeoCoord sw = GeoDecodeScore(0);
  EXPECT_EQ(Human(sw.longitude), "-179.99999731779098511");
  EXPECT_EQ(Human(sw.latitude), "-85.05112751263942528");
}

// ZADD can give a geo set any score: Redis casts it to uint64_t as x86-64 does.
TEST(GeohashTest, DecodesScoresThatAreNotGeohashesAsRedis) {
  const GeoCoord minus_one = GeoDecodeScore(-1);  // all bits set
  EXPECT_EQ(Human(minus_one.longitude), "180");
  EXPECT_EQ(Human(minus_one.latitude), "85.0511287799999991");
  const GeoCoord plus_inf = GeoDecodeScore(std::numeric_limits<double>::infinity());  // 0
  EXPECT_EQ(Human(plus_inf.longitude), "-179.99999731779098511");
  const GeoCoord minus_inf = GeoDecodeScore(-std::numeric_limits<double>::infinity());  // 2^63
  EXPECT_EQ(Human(minus_inf.longitude), "180");
  EXPECT_EQ(Human(minus_inf.latitude), "-85.05112751263942528");
  const GeoCoord p53 = GeoDecodeScore(9007199254740992.0);
  EXPECT_EQ(Human(p53.longitude), "180");
  EXPECT_EQ(Human(p53.latitude), "-85.05112751263942528");
}

TEST(GeohashTest, ScoreAsIntegerTruncatesLikeX86) {
  EXPECT_EQ(GeoScoreAsInteger(3479099956230698), 3479099956230698);
  EXPECT_EQ(GeoScoreAsInteger(-1.5), -1);
  EXPECT_EQ(GeoScoreAsInteger(1e19), INT64_MIN);
  EXPECT_EQ(GeoScoreAsInteger(-std::numeric_limits<double>::infinity()), INT64_MIN);
}

TEST(GeohashTest, TextIsStandardGeohash) {
  EXPECT_EQ(Hash(GeoDecodeScore(3479099956230698)), "sqc8b49rny0");
  EXPECT_EQ(Hash(GeoDecodeScore(3479447370796909)), "sqdtr74hyu0");
  EXPECT_EQ(Hash(GeoDecodeScore(3377699720527872)), "s0000000000");
  EXPECT_EQ(Hash(GeoDecodeScore(13510798882111488)), "bp05b5048p0");
  EXPECT_EQ(Hash(GeoDecodeScore(0)), "00bh0hbj200");
  // Longitude 180 wraps to the first column.
  EXPECT_EQ(Hash(GeoDecodeScore(10133099161583616)), "80000000000");
}

TEST(GeohashTest, DistanceIsRedisHaversine) {
  const GeoCoord a = GeoDecodeScore(3479099956230698);
  const GeoCoord b = GeoDecodeScore(3479447370796909);
  EXPECT_EQ(Distance(GeoDistance(a.longitude, a.latitude, b.longitude, b.latitude)), "166274.1516");
  EXPECT_EQ(GeoDistance(13.361389, 38.115556, 15.087269, 37.502669), 166274.25779140723);
  EXPECT_EQ(GeoDistance(179.9, 0, -179.9, 0), 22245.260000000355);
  EXPECT_EQ(GeoDistance(0, 0, 180, 0), 20020734.00000016);
  EXPECT_EQ(GeoDistance(0, 85.05112878, 0, -85.05112878), 18919844.730045982);
}

TEST(GeohashTest, SameLongitudeUsesLatitudeArc) {
  EXPECT_EQ(GeoDistance(10, 20, 10, -30), 5561315.0000000438);
  EXPECT_EQ(GeoDistance(10, 20, 10, -30), GeoLatDistance(20, -30));
}

TEST(GeohashTest, FormatsDistanceWithFourDecimals) {
  EXPECT_EQ(Distance(0), "0.0000");
  EXPECT_EQ(Distance(-0.0), "0.0000");
  EXPECT_EQ(Distance(0.00004), "0.0000");
  EXPECT_EQ(Distance(0.00006), "0.0001");
  EXPECT_EQ(Distance(0.1234), "0.1234");
  EXPECT_EQ(Distance(1.5), "1.5000");
  EXPECT_EQ(Distance(-2.25), "-2.2500");
  EXPECT_EQ(Distance(-0.00001), "0.0000");
  EXPECT_EQ(Distance(166274.25779140723), "166274.2578");
  EXPECT_EQ(Distance(std::nan("")), "-922337203685477.5808");
}

TEST(GeohashTest, EstimatesStepsAsRedis) {
  struct Case {
    double range_m;
    int equator, lat70, lat_minus81;
  };
  const Case cases[] = {{1, 24, 23, 22},    {7, 21, 20, 19},    {49, 18, 17, 16},
                        {343, 15, 14, 13},  {2401, 13, 12, 11}, {16807, 10, 9, 8},
                        {117649, 7, 6, 5},  {823543, 4, 3, 2},  {5764801, 1, 1, 1},
                        {40353607, 1, 1, 1}};
  for (const Case& c : cases) {
    EXPECT_EQ(GeohashEstimateSteps(c.range_m, 0), c.equator) << c.range_m;
    EXPECT_EQ(GeohashEstimateSteps(c.range_m, 70), c.lat70) << c.range_m;
    EXPECT_EQ(GeohashEstimateSteps(c.range_m, -81), c.lat_minus81) << c.range_m;
  }
  EXPECT_EQ(GeohashEstimateSteps(0, 0), 26);
  EXPECT_EQ(GeohashEstimateSteps(std::numeric_limits<double>::infinity(), 0), 1);
}

TEST(GeohashTest, NeighboursWrapAround) {
  const GeoNeighbors n = GeohashNeighbors({0, 1});
  EXPECT_EQ(n.north.bits, 1u);
  EXPECT_EQ(n.south.bits, 1u);
  EXPECT_EQ(n.east.bits, 2u);
  EXPECT_EQ(n.west.bits, 2u);
  EXPECT_EQ(n.north_east.bits, 3u);
  EXPECT_EQ(n.south_west.bits, 3u);
}

TEST(GeohashTest, NeighboursOfInnerCell) {
  const GeoNeighbors n = GeohashNeighbors({45, 3});
  const std::uint64_t got[] = {n.north.bits,      n.south.bits,      n.east.bits,
                               n.west.bits,       n.north_east.bits, n.north_west.bits,
                               n.south_east.bits, n.south_west.bits};
  const std::uint64_t want[] = {56, 44, 47, 39, 58, 50, 46, 38};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(got[i], want[i]) << i;
}

struct CellsCase {
  GeoShape shape;
  std::vector<std::pair<std::uint64_t, int>> cells;
};

class GeoCellsTest : public testing::TestWithParam<CellsCase> {};

TEST_P(GeoCellsTest, MatchesRedisSearchAreas) {
  const GeoSearchCells got = GeoCellsForShape(GetParam().shape);
  std::vector<std::pair<std::uint64_t, int>> cells;
  for (int i = 0; i < got.count; ++i) cells.emplace_back(got.cells[i].bits, got.cells[i].step);
  EXPECT_EQ(cells, GetParam().cells);
}

GeoShape Circle(double lon, double lat, double radius_m) {
  return {.kind = GeoShape::Kind::kRadius, .centre = {lon, lat}, .radius = radius_m};
}

INSTANTIATE_TEST_SUITE_P(
    RedisValues, GeoCellsTest,
    testing::Values(
        // Neighbours on the far side of the shape are dropped.
        CellsCase{Circle(0, 0, 1000),
                  {{201326592, 14}, {156587349, 14}, {111848106, 14}, {67108863, 14}}},
        CellsCase{Circle(13.361389, 38.115556, 200000),
                  {{3164, 6}, {3165, 6}, {3161, 6}, {3158, 6}, {3159, 6}, {3155, 6}}},
        // Across the antimeridian.
        CellsCase{Circle(179.9, -16.5, 100000), {{3051, 6}, {3054, 6}, {321, 6}, {324, 6}}},
        CellsCase{Circle(0, 85.05112878, 500000),
                  {{24, 2}, {13, 2}, {26, 2}, {18, 2}, {15, 2}, {7, 2}}},
        // A huge radius: step 1, where neighbours repeat and are scanned once.
        CellsCase{Circle(0, 0, 5e6), {{3, 1}, {2, 1}, {1, 1}, {0, 1}}},
        CellsCase{Circle(0, 0, 0),
                  {{3377699720527872, 26},
                   {2627099782632789, 26},
                   {1876499844737706, 26},
                   {1125899906842623, 26}}},
        CellsCase{{.kind = GeoShape::Kind::kBox,
                   .centre = {-122.2612767, 37.7936847},
                   .width = 10000,
                   .height = 3000},
                  {{1274005, 11}, {1274004, 11}}}));

TEST(GeohashTest, MatcherAgreesWithDistance) {
  const GeoShapeMatcher circle(Circle(15, 37, 200000));
  const GeoCoord palermo = GeoDecodeScore(3479099956230698);
  double d = 0;
  EXPECT_TRUE(circle.Contains(palermo, d));
  EXPECT_EQ(d, GeoDistance(15, 37, palermo.longitude, palermo.latitude));
  EXPECT_FALSE(circle.Contains({15, 39}, d));
  EXPECT_FALSE(circle.Contains({18, 37}, d));
}

TEST(GeohashTest, BoxMatcherChecksHalfSides) {
  const GeoShapeMatcher box(
      {.kind = GeoShape::Kind::kBox, .centre = {0, 0}, .width = 200000, .height = 100000});
  double d = 0;
  EXPECT_TRUE(box.Contains({0.8, 0.4}, d));
  EXPECT_EQ(d, GeoDistance(0, 0, 0.8, 0.4));
  EXPECT_FALSE(box.Contains({0.8, 0.5}, d));
  EXPECT_FALSE(box.Contains({0.95, 0}, d));
  EXPECT_TRUE(box.Contains({0, 0}, d));
  EXPECT_EQ(d, 0);
}

// Redis's geoWithinShape, spelled with the functions that mirror geohash_helper.c.
bool RedisWithin(const GeoShape& shape, GeoCoord p, double& distance) {
  const GeoCoord c = shape.centre;
  if (shape.kind == GeoShape::Kind::kRadius) {
    distance = GeoDistance(c.longitude, c.latitude, p.longitude, p.latitude);
    return !(distance > shape.radius * shape.conversion);
  }
  if (GeoLatDistance(p.latitude, c.latitude) > shape.height * shape.conversion / 2) return false;
  if (GeoDistance(p.longitude, p.latitude, c.longitude, p.latitude) >
      shape.width * shape.conversion / 2) {
    return false;
  }
  distance = GeoDistance(c.longitude, c.latitude, p.longitude, p.latitude);
  return true;
}

// The matcher's early rejections must never change an answer: points exactly on the edge of
// circles and boxes of every size, and just past it, anywhere up to the poles.
TEST(GeohashTest, MatcherAgreesWithRedisOnEdges) {
  std::mt19937_64 rng(20240607);
  std::uniform_real_distribution<double> unit(0, 1);
  int inside = 0;
  for (int i = 0; i < 100000; ++i) {
    const GeoCoord c{unit(rng) * 360 - 180, (unit(rng) * 2 - 1) * kGeoLatMax};
    const double spread = std::pow(10, unit(rng) * 6 - 5);  // degrees
    GeoCoord p{c.longitude + (unit(rng) * 2 - 1) * spread,
               c.latitude + (unit(rng) * 2 - 1) * spread};
    p.longitude = std::fmax(-180, std::fmin(180, p.longitude));
    p.latitude = std::fmax(-kGeoLatMax, std::fmin(kGeoLatMax, p.latitude));
    GeoShape shape{.centre = c};
    if (i % 2 == 0) {
      shape.radius = GeoDistance(c.longitude, c.latitude, p.longitude, p.latitude);
    } else {
      shape.kind = GeoShape::Kind::kBox;
      shape.height = 2 * GeoLatDistance(p.latitude, c.latitude);
      shape.width = 2 * GeoDistance(p.longitude, p.latitude, c.longitude, p.latitude);
    }
    // On the edge, then one ulp inside it (out), then a little wider (in).
    for (int variant = 0; variant < 3; ++variant) {
      GeoShape s = shape;
      const double factor = variant == 0 ? 1 : variant == 1 ? 1 - 1e-16 : 1.5;
      s.radius *= factor;
      s.width *= factor;
      s.height *= factor;
      if (variant == 1) {
        s.radius = std::nextafter(shape.radius, 0);
        s.width = std::nextafter(shape.width, 0);
      }
      double want_d = -1;
      double got_d = -1;
      const bool want = RedisWithin(s, p, want_d);
      ASSERT_EQ(GeoShapeMatcher(s).Contains(p, got_d), want) << i << " " << variant;
      if (want) {
        ASSERT_EQ(got_d, want_d) << i;
        ++inside;
      }
    }
  }
  EXPECT_GT(inside, 100000);
}

TEST(GeohashTest, MatcherAgreesWithRedisOnRandomPoints) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  const double conversions[] = {1, 1000, 0.3048, 1609.34};
  for (int i = 0; i < 2000; ++i) {
    GeoShape s;
    s.kind = i % 2 == 0 ? GeoShape::Kind::kRadius : GeoShape::Kind::kBox;
    s.centre = {unit(rng) * 360 - 180, (unit(rng) * 2 - 1) * kGeoLatMax};
    s.conversion = conversions[i % 4];
    const double size = std::pow(10, unit(rng) * 8 - 1) / s.conversion;
    s.radius = size;
    s.width = size * (0.2 + unit(rng) * 2);
    s.height = size * (0.2 + unit(rng) * 2);
    const double spread = size * s.conversion / 111000 * 2;  // degrees
    const GeoShapeMatcher matcher(s);
    for (int j = 0; j < 100; ++j) {
      GeoCoord p{s.centre.longitude + (unit(rng) * 2 - 1) * spread,
                 s.centre.latitude + (unit(rng) * 2 - 1) * spread};
      p.longitude = std::fmax(-180, std::fmin(180, p.longitude));
      p.latitude = std::fmax(-kGeoLatMax, std::fmin(kGeoLatMax, p.latitude));
      double want_d = -1;
      double got_d = -1;
      const bool want = RedisWithin(s, p, want_d);
      ASSERT_EQ(matcher.Contains(p, got_d), want) << i << " " << j;
      if (want) {
        ASSERT_EQ(got_d, want_d);
      }
    }
  }
}

TEST(GeohashTest, UnitsAreCaseInsensitiveAndEndAtNul) {
  EXPECT_EQ(GeoUnitMeters("m"), 1);
  EXPECT_EQ(GeoUnitMeters("KM"), 1000);
  EXPECT_EQ(GeoUnitMeters("Ft"), 0.3048);
  EXPECT_EQ(GeoUnitMeters("mI"), 1609.34);
  EXPECT_EQ(GeoUnitMeters(std::string_view("km\0x", 4)), 1000);
  EXPECT_EQ(GeoUnitMeters("kms"), 0);
  EXPECT_EQ(GeoUnitMeters(""), 0);
}

// Points whose distances tie, numbered by their starting position.
std::vector<GeoPoint> TiedPoints(int n, int modulus, int factor) {
  std::vector<GeoPoint> points(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    points[static_cast<std::size_t>(i)].distance = (i * factor) % modulus;
    points[static_cast<std::size_t>(i)].member_offset = static_cast<std::size_t>(i);
  }
  return points;
}

std::vector<std::size_t> Order(const std::vector<GeoPoint>& points) {
  std::vector<std::size_t> order;
  for (const GeoPoint& p : points) order.push_back(p.member_offset);
  return order;
}

TEST(GeoSortTest, AllPointsSortStably) {
  std::vector<GeoPoint> points = TiedPoints(50, 5, 7);
  std::vector<GeoPoint> scratch;
  GeoSortPoints(points, false, points.size(), scratch);
  const std::vector<std::size_t> want = {0,  5,  10, 15, 20, 25, 30, 35, 40, 45, 3,  8,  13,
                                         18, 23, 28, 33, 38, 43, 48, 1,  6,  11, 16, 21, 26,
                                         31, 36, 41, 46, 4,  9,  14, 19, 24, 29, 34, 39, 44,
                                         49, 2,  7,  12, 17, 22, 27, 32, 37, 42, 47};
  EXPECT_EQ(Order(points), want);
}

TEST(GeoSortTest, FirstFewSortAsRedisPqsort) {
  std::vector<GeoPoint> points = TiedPoints(50, 5, 7);
  std::vector<GeoPoint> scratch;
  GeoSortPoints(points, false, 7, scratch);
  const std::vector<std::size_t> want = {30, 45, 25, 5,  0,  40, 10, 35, 15, 20, 3,  48, 28,
                                         23, 38, 13, 33, 43, 8,  18, 6,  1,  11, 16, 21, 26,
                                         31, 36, 41, 46, 19, 49, 32, 17, 34, 14, 47, 37, 12,
                                         39, 9,  2,  42, 7,  44, 24, 4,  27, 22, 29};
  EXPECT_EQ(Order(points), want);
}

TEST(GeoSortTest, FirstFewDescendingSortAsRedisPqsort) {
  std::vector<GeoPoint> points = TiedPoints(50, 5, 7);
  std::vector<GeoPoint> scratch;
  GeoSortPoints(points, true, 12, scratch);
  const std::vector<std::size_t> want = {32, 47, 22, 27, 2,  7,  42, 12, 37, 17, 9,  49, 19,
                                         29, 24, 39, 14, 34, 44, 4,  31, 1,  6,  11, 16, 21,
                                         26, 36, 41, 46, 30, 0,  20, 33, 18, 35, 5,  15, 38,
                                         13, 40, 48, 10, 43, 8,  45, 3,  25, 28, 23};
  EXPECT_EQ(Order(points), want);
}

TEST(GeoSortTest, TenPointsSortAsRedisPqsort) {
  std::vector<GeoPoint> points = TiedPoints(10, 4, 3);
  std::vector<GeoPoint> scratch;
  GeoSortPoints(points, false, 3, scratch);
  EXPECT_EQ(Order(points), (std::vector<std::size_t>{8, 4, 0, 3, 7, 2, 6, 9, 1, 5}));
}

}  // namespace
}  // namespace warden::storage
