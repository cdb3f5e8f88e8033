// Redis's geohash (geohash.c, geohash_helper.c), the arithmetic behind the GEO commands. A geo
// set is a sorted set whose scores are 52-bit geohashes: 26 bits of longitude and 26 of
// latitude, interleaved (longitude in the odd bits), over Redis's Web Mercator limits
// (latitudes beyond +-85.05112878 cannot be indexed). A radius or box search turns into up to
// nine score ranges: the cell around the centre, sized from the radius, and its eight
// neighbours; each candidate is then checked with the haversine distance on Redis's earth
// radius.
//
// Every formula keeps Redis's order of floating-point operations, so scores, coordinates and
// distances come out bit for bit as Redis computes them. No RESP here: the formatting helpers
// write plain text into the caller's buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace warden::storage {

inline constexpr double kGeoLongMin = -180;
inline constexpr double kGeoLongMax = 180;
inline constexpr double kGeoLatMin = -85.05112878;
inline constexpr double kGeoLatMax = 85.05112878;
// 26 steps per axis: 52 bits, exact in a double score.
inline constexpr int kGeoStepMax = 26;
// Redis's EARTH_RADIUS_IN_METERS (the quadratic mean radius of WGS-84).
inline constexpr double kEarthRadiusMeters = 6372797.560856;

// A cell: `step` bits per axis, interleaved in the low 2 * step bits. Step 0 marks no cell.
struct GeoHash {
  std::uint64_t bits = 0;
  int step = 0;
  bool zero() const { return bits == 0 && step == 0; }
};

struct GeoRange {
  double min = 0;
  double max = 0;
};

struct GeoArea {
  GeoRange longitude;
  GeoRange latitude;
};

struct GeoCoord {
  double longitude = 0;
  double latitude = 0;
};

// Whether Redis accepts the pair (GEOADD, FROMLONLAT, GEORADIUS).
inline bool GeoCoordValid(double longitude, double latitude) {
  return longitude >= kGeoLongMin && longitude <= kGeoLongMax && latitude >= kGeoLatMin &&
         latitude <= kGeoLatMax;
}

// The cell of `step` (1..32) holding the point over the given ranges; false when the point is
// outside them or Redis's limits.
bool GeohashEncode(GeoRange longitude_range, GeoRange latitude_range, double longitude,
                   double latitude, int step, GeoHash& out);
// The same over Redis's ranges.
bool GeohashEncodeWgs84(double longitude, double latitude, int step, GeoHash& out);
// The cell's bounds over Redis's ranges.
GeoArea GeohashDecodeWgs84(GeoHash hash);
// The score of a valid point: its step-26 cell's bits. A point on the upper limits carries a
// 27th bit per axis, as in Redis.
std::uint64_t GeoScoreOf(double longitude, double latitude);
// The centre of a score's cell, clamped to the limits (Redis's decodeGeohash). Any score
// decodes: it is cast to 64 bits as Redis's build does on x86-64.
GeoCoord GeoDecodeScore(double score);
// A score as Redis's `(long long)` cast of it gives WITHHASH on x86-64 (out of range: INT64_MIN).
std::int64_t GeoScoreAsInteger(double score);
// `hash` shifted to 52 bits: the scores of its cell are [align(hash), align(hash + 1)).
std::uint64_t GeohashAlign52(GeoHash hash);

struct GeoNeighbors {
  GeoHash north, south, east, west, north_east, north_west, south_east, south_west;
};
// The eight cells of the same step around `hash` (wrapping around at the edges).
GeoNeighbors GeohashNeighbors(GeoHash hash);
// The step whose cells cover a search of `range_meters` around `latitude`.
int GeohashEstimateSteps(double range_meters, double latitude);

// Great-circle distance in metres (haversine), with Redis's shortcut when the longitudes
// match.
double GeoDistance(double lon1, double lat1, double lon2, double lat2);
double GeoLatDistance(double lat1, double lat2);

// A search: a circle of `radius`, or a `width` x `height` box, in the unit that `conversion`
// turns into metres.
struct GeoShape {
  enum class Kind { kRadius, kBox };
  Kind kind = Kind::kRadius;
  GeoCoord centre;
  double conversion = 1;
  double radius = 0;
  double width = 0;
  double height = 0;
};

// The cells to scan for a shape, in Redis's order (centre, N, S, E, W, NE, NW, SE, SW), without
// the ones Redis skips: the neighbours the shape cannot reach and a cell equal to the one
// scanned just before.
struct GeoSearchCells {
  GeoHash cells[9];
  int count = 0;
};
GeoSearchCells GeoCellsForShape(const GeoShape& shape);

// Tests points against a shape as Redis's geoWithinShape does, with what depends only on the
// centre computed once. Most candidates of a search lie outside the shape: a cheap lower bound
// on their distance (latitude arc, then longitude arc at the parallel nearest a pole), with a
// margin far above any rounding, rejects them before the trigonometry. Every point it does not
// reject gets Redis's exact computation, so the answer and the distance are Redis's.
class GeoShapeMatcher {
 public:
  explicit GeoShapeMatcher(const GeoShape& shape);
  // Whether `point` is inside; `distance_m` is its distance from the centre in metres.
  bool Contains(GeoCoord point, double& distance_m) const;

 private:
  bool InRadius(GeoCoord point, double& distance_m) const;
  bool InBox(GeoCoord point, double& distance_m) const;
  // Redis's distance from the centre, its terms computed by the caller.
  double DistanceFromCentre(double lat_rad, double lat_cos, double lon_delta_rad) const;

  GeoShape::Kind kind_;
  double radius_m_ = 0;
  double half_width_m_ = 0;
  double half_height_m_ = 0;
  double centre_lon_rad_ = 0;
  double centre_lat_rad_ = 0;
  double centre_lat_cos_ = 0;
  // The bound: a point is out once bound_scale_ * (h - h^3 / 6) (h half the longitude gap, in
  // radians) or its latitude arc exceeds bound_limit_m_.
  double bound_scale_ = 0;
  double bound_limit_m_ = 0;
};

// A point a search found: its distance from the centre (in metres, or in the search's unit once
// the caller divides), its score and coordinates, and where the caller keeps its member.
struct GeoPoint {
  double distance = 0;
  double score = 0;
  GeoCoord coord;
  std::size_t member_offset = 0;
  std::size_t member_size = 0;
};
// Orders points by distance, ascending or descending, as Redis does, ties included: when all
// of them are wanted (`first_n` == size) with glibc's qsort (a stable top-down merge sort,
// using `scratch`), otherwise with Redis's pqsort (a quicksort that leaves unsorted the parts
// holding none of the first `first_n`).
void GeoSortPoints(std::span<GeoPoint> points, bool descending, std::size_t first_n,
                   std::vector<GeoPoint>& scratch);

// Metres per unit for GEODIST's and the searches' units (m, km, ft, mi, any case); 0 when the
// unit is none of them.
double GeoUnitMeters(std::string_view unit);

// GEOHASH's 11 characters: the point re-encoded over the standard -90..90 latitudes, in the
// geohash alphabet, the 11th always '0' (Redis has only 52 bits).
void GeohashText(GeoCoord coord, char (&out)[11]);

// A distance as Redis prints it, with 4 decimals rounded by llrint (fixedpoint_d2string).
std::string_view FormatGeoDistance(double value, char (&buf)[32]);

}  // namespace warden::storage
