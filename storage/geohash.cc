#include "storage/geohash.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <numbers>
#include <utility>

namespace warden::storage {
namespace {

constexpr GeoRange kLongRange{kGeoLongMin, kGeoLongMax};
constexpr GeoRange kLatRange{kGeoLatMin, kGeoLatMax};
// Redis's D_R: the constant is rounded once, then every conversion is one multiply (or divide).
constexpr double kDegToRad = std::numbers::pi / 180.0;
// The longitude span of Web Mercator in metres: GeohashEstimateSteps doubles the range up to it.
constexpr double kMercatorMax = 20037726.37;

double DegToRad(double degrees) { return degrees * kDegToRad; }
double RadToDeg(double radians) { return radians / kDegToRad; }

// cvttsd2si: out of range and NaN give INT64_MIN, the x86-64 "integer indefinite".
std::int64_t TruncateLikeX86(double d) {
  if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
    return static_cast<std::int64_t>(d);
  }
  return INT64_MIN;
}

// How GCC converts a double to uint64_t on x86-64 (Redis's `(uint64_t)bits`): below 2^63 (or
// NaN) a signed conversion, so a negative score wraps; from 2^63 on, the conversion of
// d - 2^63 with the top bit flipped.
std::uint64_t ToUint64LikeX86(double d) {
  constexpr double k2p63 = 9223372036854775808.0;
  if (!(d >= k2p63)) return static_cast<std::uint64_t>(TruncateLikeX86(d));
  return static_cast<std::uint64_t>(TruncateLikeX86(d - k2p63)) ^ (std::uint64_t{1} << 63);
}

// Spreads the low 32 bits of x into the even bits and those of y into the odd bits.
std::uint64_t Interleave(std::uint32_t x_low, std::uint32_t y_low) {
  std::uint64_t x = x_low;
  std::uint64_t y = y_low;
  constexpr std::uint64_t kMasks[] = {0x5555555555555555ULL, 0x3333333333333333ULL,
                                      0x0F0F0F0F0F0F0F0FULL, 0x00FF00FF00FF00FFULL,
                                      0x0000FFFF0000FFFFULL};
  constexpr unsigned kShifts[] = {1, 2, 4, 8, 16};
  for (int i = 4; i >= 0; --i) {
    x = (x | (x << kShifts[i])) & kMasks[i];
    y = (y | (y << kShifts[i])) & kMasks[i];
  }
  return x | (y << 1);
}

// The inverse over all 64 bits: even bits to the low half, odd bits to the high half.
std::uint64_t Deinterleave(std::uint64_t interleaved) {
  std::uint64_t x = interleaved;
  std::uint64_t y = interleaved >> 1;
  constexpr std::uint64_t kMasks[] = {0x5555555555555555ULL, 0x3333333333333333ULL,
                                      0x0F0F0F0F0F0F0F0FULL, 0x00FF00FF00FF00FFULL,
                                      0x0000FFFF0000FFFFULL, 0x00000000FFFFFFFFULL};
  constexpr unsigned kShifts[] = {0, 1, 2, 4, 8, 16};
  for (int i = 0; i < 6; ++i) {
    x = (x | (x >> kShifts[i])) & kMasks[i];
    y = (y | (y >> kShifts[i])) & kMasks[i];
  }
  return x | (y << 32);
}

GeoArea Decode(GeoRange longitude_range, GeoRange latitude_range, GeoHash hash) {
  const std::uint64_t separated = Deinterleave(hash.bits);
  const double lat_scale = latitude_range.max - latitude_range.min;
  const double long_scale = longitude_range.max - longitude_range.min;
  const auto lat_cell = static_cast<std::uint32_t>(separated);
  const auto long_cell = static_cast<std::uint32_t>(separated >> 32);
  const double cells = static_cast<double>(std::uint64_t{1} << hash.step);
  GeoArea area;
  area.latitude.min = latitude_range.min + (lat_cell * 1.0 / cells) * lat_scale;
  area.latitude.max = latitude_range.min + ((lat_cell + 1) * 1.0 / cells) * lat_scale;
  area.longitude.min = longitude_range.min + (long_cell * 1.0 / cells) * long_scale;
  area.longitude.max = longitude_range.min + ((long_cell + 1) * 1.0 / cells) * long_scale;
  return area;
}

// Moves the hash one cell along longitude (the odd bits) or latitude (the even bits), wrapping.
void MoveX(GeoHash& hash, int d) {
  std::uint64_t x = hash.bits & 0xaaaaaaaaaaaaaaaaULL;
  const std::uint64_t y = hash.bits & 0x5555555555555555ULL;
  const std::uint64_t zz = 0x5555555555555555ULL >> (64 - hash.step * 2);
  if (d > 0) {
    x = x + (zz + 1);
  } else {
    x = x | zz;
    x = x - (zz + 1);
  }
  x &= (0xaaaaaaaaaaaaaaaaULL >> (64 - hash.step * 2));
  hash.bits = x | y;
}

void MoveY(GeoHash& hash, int d) {
  const std::uint64_t x = hash.bits & 0xaaaaaaaaaaaaaaaaULL;
  std::uint64_t y = hash.bits & 0x5555555555555555ULL;
  const std::uint64_t zz = 0xaaaaaaaaaaaaaaaaULL >> (64 - hash.step * 2);
  if (d > 0) {
    y = y + (zz + 1);
  } else {
    y = y | zz;
    y = y - (zz + 1);
  }
  y &= (0x5555555555555555ULL >> (64 - hash.step * 2));
  hash.bits = x | y;
}

GeoHash Moved(GeoHash hash, int dx, int dy) {
  if (dx != 0) MoveX(hash, dx);
  if (dy != 0) MoveY(hash, dy);
  return hash;
}

// Redis's geohashBoundingBox: [min_lon, min_lat, max_lon, max_lat] around the centre. The
// longitude span is taken at the edge nearer the pole, where meridians are closest.
void BoundingBox(const GeoShape& shape, double bounds[4]) {
  const double longitude = shape.centre.longitude;
  const double latitude = shape.centre.latitude;
  const bool circle = shape.kind == GeoShape::Kind::kRadius;
  const double height = shape.conversion * (circle ? shape.radius : shape.height / 2);
  const double width = shape.conversion * (circle ? shape.radius : shape.width / 2);
  const double lat_delta = RadToDeg(height / kEarthRadiusMeters);
  const double long_delta_top =
      RadToDeg(width / kEarthRadiusMeters / std::cos(DegToRad(latitude + lat_delta)));
  const double long_delta_bottom =
      RadToDeg(width / kEarthRadiusMeters / std::cos(DegToRad(latitude - lat_delta)));
  const bool southern = latitude < 0;
  bounds[0] = southern ? longitude - long_delta_bottom : longitude - long_delta_top;
  bounds[2] = southern ? longitude + long_delta_bottom : longitude + long_delta_top;
  bounds[1] = latitude - lat_delta;
  bounds[3] = latitude + lat_delta;
}

}  // namespace

bool GeohashEncode(GeoRange longitude_range, GeoRange latitude_range, double longitude,
                   double latitude, int step, GeoHash& out) {
  if (step > 32 || step <= 0) return false;
  if (!GeoCoordValid(longitude, latitude)) return false;
  out.bits = 0;
  out.step = step;
  if (latitude < latitude_range.min || latitude > latitude_range.max ||
      longitude < longitude_range.min || longitude > longitude_range.max) {
    return false;
  }
  double lat_offset = (latitude - latitude_range.min) / (latitude_range.max - latitude_range.min);
  double long_offset =
      (longitude - longitude_range.min) / (longitude_range.max - longitude_range.min);
  lat_offset *= static_cast<double>(std::uint64_t{1} << step);
  long_offset *= static_cast<double>(std::uint64_t{1} << step);
  // Both offsets lie in [0, 2^step]; the upper limit itself keeps its extra bit.
  out.bits = Interleave(static_cast<std::uint32_t>(static_cast<std::int64_t>(lat_offset)),
                        static_cast<std::uint32_t>(static_cast<std::int64_t>(long_offset)));
  return true;
}

bool GeohashEncodeWgs84(double longitude, double latitude, int step, GeoHash& out) {
  return GeohashEncode(kLongRange, kLatRange, longitude, latitude, step, out);
}

GeoArea GeohashDecodeWgs84(GeoHash hash) { return Decode(kLongRange, kLatRange, hash); }

std::uint64_t GeoScoreOf(double longitude, double latitude) {
  GeoHash hash;
  GeohashEncodeWgs84(longitude, latitude, kGeoStepMax, hash);
  return GeohashAlign52(hash);
}

GeoCoord GeoDecodeScore(double score) {
  const GeoArea area = GeohashDecodeWgs84({ToUint64LikeX86(score), kGeoStepMax});
  GeoCoord xy;
  xy.longitude = (area.longitude.min + area.longitude.max) / 2;
  if (xy.longitude > kGeoLongMax) xy.longitude = kGeoLongMax;
  if (xy.longitude < kGeoLongMin) xy.longitude = kGeoLongMin;
  xy.latitude = (area.latitude.min + area.latitude.max) / 2;
  if (xy.latitude > kGeoLatMax) xy.latitude = kGeoLatMax;
  if (xy.latitude < kGeoLatMin) xy.latitude = kGeoLatMin;
  return xy;
}

std::int64_t GeoScoreAsInteger(double score) { return TruncateLikeX86(score); }

std::uint64_t GeohashAlign52(GeoHash hash) { return hash.bits << (52 - hash.step * 2); }

GeoNeighbors GeohashNeighbors(GeoHash hash) {
  GeoNeighbors n;
  n.east = Moved(hash, 1, 0);
  n.west = Moved(hash, -1, 0);
  n.south = Moved(hash, 0, -1);
  n.north = Moved(hash, 0, 1);
  n.north_west = Moved(hash, -1, 1);
  n.north_east = Moved(hash, 1, 1);
  n.south_east = Moved(hash, 1, -1);
  n.south_west = Moved(hash, -1, -1);
  return n;
}

int GeohashEstimateSteps(double range_meters, double latitude) {
  if (range_meters == 0) return kGeoStepMax;
  int step = 1;
  while (range_meters < kMercatorMax) {
    range_meters *= 2;
    step++;
  }
  step -= 2;  // so that the range fits in most cases
  // Meridians converge towards the poles: wider cells there.
  if (latitude > 66 || latitude < -66) {
    step--;
    if (latitude > 80 || latitude < -80) step--;
  }
  if (step < 1) step = 1;
  if (step > kGeoStepMax) step = kGeoStepMax;
  return step;
}

double GeoLatDistance(double lat1, double lat2) {
  return kEarthRadiusMeters * std::fabs(DegToRad(lat2) - DegToRad(lat1));
}

double GeoDistance(double lon1, double lat1, double lon2, double lat2) {
  const double lon1r = DegToRad(lon1);
  const double lon2r = DegToRad(lon2);
  const double v = std::sin((lon2r - lon1r) / 2);
  // Same longitude: the distance is the latitude arc, without the trigonometry.
  if (v == 0.0) return GeoLatDistance(lat1, lat2);
  const double lat1r = DegToRad(lat1);
  const double lat2r = DegToRad(lat2);
  const double u = std::sin((lat2r - lat1r) / 2);
  const double a = u * u + std::cos(lat1r) * std::cos(lat2r) * v * v;
  return 2.0 * kEarthRadiusMeters * std::asin(std::sqrt(a));
}

GeoSearchCells GeoCellsForShape(const GeoShape& shape) {
  double bounds[4];
  BoundingBox(shape, bounds);
  const double min_lon = bounds[0];
  const double min_lat = bounds[1];
  const double max_lon = bounds[2];
  const double max_lat = bounds[3];
  const double longitude = shape.centre.longitude;
  const double latitude = shape.centre.latitude;
  // A box is reached at its corners: half its diagonal.
  double radius_meters = shape.kind == GeoShape::Kind::kRadius
                             ? shape.radius
                             : std::sqrt((shape.width / 2) * (shape.width / 2) +
                                         (shape.height / 2) * (shape.height / 2));
  radius_meters *= shape.conversion;

  int steps = GeohashEstimateSteps(radius_meters, latitude);
  GeoHash hash;
  GeohashEncodeWgs84(longitude, latitude, steps, hash);
  GeoNeighbors n = GeohashNeighbors(hash);
  GeoArea area = GeohashDecodeWgs84(hash);

  // Near a cell's edge the estimate can leave part of the shape outside the nine cells: one
  // step coarser then.
  const bool decrease_step = GeohashDecodeWgs84(n.north).latitude.max < max_lat ||
                             GeohashDecodeWgs84(n.south).latitude.min > min_lat ||
                             GeohashDecodeWgs84(n.east).longitude.max < max_lon ||
                             GeohashDecodeWgs84(n.west).longitude.min > min_lon;
  if (steps > 1 && decrease_step) {
    steps--;
    GeohashEncodeWgs84(longitude, latitude, steps, hash);
    n = GeohashNeighbors(hash);
    area = GeohashDecodeWgs84(hash);
  }

  // Neighbours on a side the shape does not reach are skipped.
  if (steps >= 2) {
    if (area.latitude.min < min_lat) n.south = n.south_west = n.south_east = GeoHash{};
    if (area.latitude.max > max_lat) n.north = n.north_east = n.north_west = GeoHash{};
    if (area.longitude.min < min_lon) n.west = n.south_west = n.north_west = GeoHash{};
    if (area.longitude.max > max_lon) n.east = n.south_east = n.north_east = GeoHash{};
  }

  const GeoHash all[9] = {hash,         n.north,      n.south,      n.east,      n.west,
                          n.north_east, n.north_west, n.south_east, n.south_west};
  GeoSearchCells out;
  // With a huge radius neighbours can repeat: Redis skips a cell equal to the last one it
  // scanned, except right after the centre (its "last processed" index 0 means none).
  int last = 0;
  for (int i = 0; i < 9; ++i) {
    if (all[i].zero()) continue;
    if (last != 0 && all[i].bits == all[last].bits && all[i].step == all[last].step) continue;
    out.cells[out.count++] = all[i];
    last = i;
  }
  return out;
}

GeoShapeMatcher::GeoShapeMatcher(const GeoShape& shape)
    : kind_(shape.kind),
      radius_m_(shape.radius * shape.conversion),
      half_width_m_(shape.width * shape.conversion / 2),
      half_height_m_(shape.height * shape.conversion / 2),
      centre_lon_rad_(DegToRad(shape.centre.longitude)),
      centre_lat_rad_(DegToRad(shape.centre.latitude)),
      centre_lat_cos_(std::cos(centre_lat_rad_)) {
  // A point that passes the latitude test lies within `reach` of the centre's latitude, so
  // the cosine of its latitude is at least `cos_min`. Since sin(h) >= h - h^3 / 6 and
  // asin(x) >= x, the circle's distance is at least 2R sqrt(cos(lat1) cos_min) (h - h^3 / 6),
  // and the box's distance along the point's parallel at least 2R cos_min (h - h^3 / 6).
  constexpr double kMargin = 1e-9;  // relative; rounding is some 1e-15
  constexpr double kSlackM = 1e-6;  // absolute, for distances near zero
  const bool circle = kind_ == GeoShape::Kind::kRadius;
  const double along = circle ? radius_m_ : half_height_m_;
  const double reach = (along * (1 + kMargin) + kSlackM) / kEarthRadiusMeters;
  const double pole_side = std::fabs(centre_lat_rad_) + reach;
  double cos_min = pole_side >= std::numbers::pi / 2 ? 0 : std::cos(pole_side) * (1 - kMargin);
  if (!(cos_min > 0)) cos_min = 0;
  bound_scale_ = 2 * kEarthRadiusMeters *
                 (circle ? std::sqrt(centre_lat_cos_ * cos_min) : cos_min) * (1 - kMargin);
  // The latitude arc bounds the circle's distance too, against the same limit.
  bound_limit_m_ = (circle ? radius_m_ : half_width_m_) * (1 + kMargin) + kSlackM;
}

bool GeoShapeMatcher::Contains(GeoCoord point, double& distance_m) const {
  return kind_ == GeoShape::Kind::kRadius ? InRadius(point, distance_m) : InBox(point, distance_m);
}

namespace {

// A lower bound of sin(h) for h in [0, pi], or 0.
double SinLowerBound(double h) {
  const double bound = h - h * h * h / 6;
  return bound > 0 ? bound : 0;
}

}  // namespace

// GeoDistance(centre, point) with the centre's terms reused: the same operations on the same
// values, so the same bits.
double GeoShapeMatcher::DistanceFromCentre(double lat_rad, double lat_cos,
                                           double lon_delta_rad) const {
  const double v = std::sin(lon_delta_rad / 2);
  if (v == 0.0) return kEarthRadiusMeters * std::fabs(lat_rad - centre_lat_rad_);
  const double u = std::sin((lat_rad - centre_lat_rad_) / 2);
  const double a = u * u + centre_lat_cos_ * lat_cos * v * v;
  return 2.0 * kEarthRadiusMeters * std::asin(std::sqrt(a));
}

bool GeoShapeMatcher::InRadius(GeoCoord point, double& distance_m) const {
  const double lat_rad = DegToRad(point.latitude);
  if (kEarthRadiusMeters * std::fabs(lat_rad - centre_lat_rad_) > bound_limit_m_) return false;
  const double lon_delta_rad = DegToRad(point.longitude) - centre_lon_rad_;
  if (bound_scale_ * SinLowerBound(std::fabs(lon_delta_rad) / 2) > bound_limit_m_) return false;
  distance_m = DistanceFromCentre(lat_rad, std::cos(lat_rad), lon_delta_rad);
  return !(distance_m > radius_m_);
}

// Redis's geohashGetDistanceIfInRectangle: the latitude arc against half the height, the
// distance along the point's parallel against half the width, then the distance itself.
bool GeoShapeMatcher::InBox(GeoCoord point, double& distance_m) const {
  const double lat_rad = DegToRad(point.latitude);
  if (kEarthRadiusMeters * std::fabs(centre_lat_rad_ - lat_rad) > half_height_m_) return false;
  const double point_lon_rad = DegToRad(point.longitude);
  if (bound_scale_ * SinLowerBound(std::fabs(point_lon_rad - centre_lon_rad_) / 2) >
      bound_limit_m_) {
    return false;
  }
  const double lat_cos = std::cos(lat_rad);
  // GeoDistance(point.longitude, point.latitude, centre.longitude, point.latitude).
  const double v_parallel = std::sin((centre_lon_rad_ - point_lon_rad) / 2);
  double lon_distance = 0;
  if (v_parallel != 0.0) {
    const double u = std::sin((lat_rad - lat_rad) / 2);
    const double a = u * u + lat_cos * lat_cos * v_parallel * v_parallel;
    lon_distance = 2.0 * kEarthRadiusMeters * std::asin(std::sqrt(a));
  }
  if (lon_distance > half_width_m_) return false;
  distance_m = DistanceFromCentre(lat_rad, lat_cos, point_lon_rad - centre_lon_rad_);
  return true;
}

namespace {

// Redis's sort_gp_asc (or its negation): by distance only, so ties are left to the algorithm.
struct DistanceOrder {
  bool descending;
  int operator()(const GeoPoint& a, const GeoPoint& b) const {
    const int asc = a.distance > b.distance ? 1 : a.distance == b.distance ? 0 : -1;
    return descending ? -asc : asc;
  }
};

// glibc's msort_with_tmp: halves of n / 2 and n - n / 2, the left element taken on ties.
void MergeSort(GeoPoint* b, std::size_t n, GeoPoint* tmp, const DistanceOrder& cmp) {
  if (n <= 1) return;
  std::size_t n1 = n / 2;
  std::size_t n2 = n - n1;
  GeoPoint* b1 = b;
  GeoPoint* b2 = b + n1;
  MergeSort(b1, n1, tmp, cmp);
  MergeSort(b2, n2, tmp, cmp);
  GeoPoint* t = tmp;
  while (n1 > 0 && n2 > 0) {
    if (cmp(*b1, *b2) <= 0) {
      *t++ = *b1++;
      --n1;
    } else {
      *t++ = *b2++;
      --n2;
    }
  }
  for (; n1 > 0; --n1) *t++ = *b1++;
  for (std::size_t i = 0; i < n - n2; ++i) b[i] = tmp[i];
}

std::size_t Median3(const GeoPoint* a, std::size_t x, std::size_t y, std::size_t z,
                    const DistanceOrder& cmp) {
  if (cmp(a[x], a[y]) < 0) {
    return cmp(a[y], a[z]) < 0 ? y : (cmp(a[x], a[z]) < 0 ? z : x);
  }
  return cmp(a[y], a[z]) > 0 ? y : (cmp(a[x], a[z]) < 0 ? x : z);
}

// Redis's pqsort (Bentley and McIlroy's quicksort, from NetBSD), in indexes: the elements
// [first, first + n) of `v` are sorted as far as the ranks [lo, hi] need. A part that lies
// wholly before lo or after hi is left as it is.
void PartialQuickSort(GeoPoint* v, std::size_t first, std::size_t n, std::size_t lo, std::size_t hi,
                      const DistanceOrder& cmp) {
  const auto outside = [&](std::size_t start, std::size_t len) {
    return (lo < start && hi < start) || (lo >= start + len && hi >= start + len);
  };
  for (;;) {
    GeoPoint* a = v + first;
    if (n < 7) {
      for (std::size_t m = 1; m < n; ++m) {
        for (std::size_t l = m; l > 0 && cmp(a[l - 1], a[l]) > 0; --l) std::swap(a[l], a[l - 1]);
      }
      return;
    }
    std::size_t pm = n / 2;
    if (n > 7) {
      std::size_t pl = 0;
      std::size_t pn = n - 1;
      if (n > 40) {
        const std::size_t d = n / 8;
        pl = Median3(a, pl, pl + d, pl + 2 * d, cmp);
        pm = Median3(a, pm - d, pm, pm + d, cmp);
        pn = Median3(a, pn - 2 * d, pn - d, pn, cmp);
      }
      pm = Median3(a, pl, pm, pn, cmp);
    }
    std::swap(a[0], a[pm]);
    // [0, pa) and (pd, n) hold the pivot's equals, [pa, pb) the smaller, (pc, pd] the larger.
    std::size_t pa = 1;
    std::size_t pb = 1;
    std::size_t pc = n - 1;
    std::size_t pd = n - 1;
    for (;;) {
      int r;
      while (pb <= pc && (r = cmp(a[pb], a[0])) <= 0) {
        if (r == 0) std::swap(a[pa++], a[pb]);
        ++pb;
      }
      while (pb <= pc && (r = cmp(a[pc], a[0])) >= 0) {
        if (r == 0) std::swap(a[pc], a[pd--]);
        --pc;
      }
      if (pb > pc) break;
      std::swap(a[pb++], a[pc--]);
    }
    std::size_t r = std::min(pa, pb - pa);
    for (std::size_t i = 0; i < r; ++i) std::swap(a[i], a[pb - r + i]);
    r = std::min(pd - pc, n - pd - 1);
    for (std::size_t i = 0; i < r; ++i) std::swap(a[pb + i], a[n - r + i]);
    if ((r = pb - pa) > 1 && !outside(first, r)) PartialQuickSort(v, first, r, lo, hi, cmp);
    if ((r = pd - pc) <= 1) return;
    first = first + n - r;
    n = r;
    if (outside(first, n)) return;
  }
}

}  // namespace

void GeoSortPoints(std::span<GeoPoint> points, bool descending, std::size_t first_n,
                   std::vector<GeoPoint>& scratch) {
  const DistanceOrder cmp{descending};
  if (first_n >= points.size()) {
    scratch.resize(points.size());
    MergeSort(points.data(), points.size(), scratch.data(), cmp);
    return;
  }
  if (first_n == 0) return;
  PartialQuickSort(points.data(), 0, points.size(), 0, first_n - 1, cmp);
}

double GeoUnitMeters(std::string_view unit) {
  // Redis compares the argument as a C string: it ends at a NUL.
  unit = unit.substr(0, unit.find('\0'));
  char lower[3] = {};
  if (unit.empty() || unit.size() > 2) return 0;
  for (std::size_t i = 0; i < unit.size(); ++i) {
    const char c = unit[i];
    lower[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
  }
  const std::string_view u(lower, unit.size());
  if (u == "m") return 1;
  if (u == "km") return 1000;
  if (u == "ft") return 0.3048;
  if (u == "mi") return 1609.34;
  return 0;
}

void GeohashText(GeoCoord coord, char (&out)[11]) {
  static constexpr char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  GeoHash hash;
  GeohashEncode({-180, 180}, {-90, 90}, coord.longitude, coord.latitude, kGeoStepMax, hash);
  for (int i = 0; i < 10; ++i) out[i] = kAlphabet[(hash.bits >> (52 - (i + 1) * 5)) & 0x1f];
  out[10] = '0';
}

std::string_view FormatGeoDistance(double value, char (&buf)[32]) {
  constexpr int kDecimals = 4;
  if (value == 0) {
    std::memcpy(buf, "0.0000", 6);
    return {buf, 6};
  }
  const long long scaled = std::llrint(value * 10000.0);
  unsigned long long magnitude = 0;
  std::size_t len = 0;
  if (scaled < 0) {
    buf[len++] = '-';
    magnitude = scaled == LLONG_MIN ? static_cast<unsigned long long>(LLONG_MAX) + 1
                                    : static_cast<unsigned long long>(-scaled);
  } else {
    magnitude = static_cast<unsigned long long>(scaled);
  }
  // The digits, at least one before the point.
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  while (n < kDecimals + 1) digits[n++] = '0';
  for (int i = n - 1; i >= 0; --i) {
    if (i == kDecimals - 1) buf[len++] = '.';
    buf[len++] = digits[i];
  }
  return {buf, len};
}

}  // namespace warden::storage
