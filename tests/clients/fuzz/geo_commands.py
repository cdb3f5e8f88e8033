"""The makers of geo commands (GEOADD, GEOPOS, GEODIST, GEOHASH, GEOSEARCH, GEOSEARCHSTORE,
GEORADIUS, GEORADIUSBYMEMBER and the _RO forms), mixed into commands.Generator like the others.
A geo set is a sorted set whose scores are 52-bit geohashes: the geo keys are their own, but
searches also read the sorted sets of ZsetMakers (any score decodes to some point) and
GEOADD meets strings (WRONGTYPE).

Points come from a pool: a cluster around Sicily (so that radii of a few to a few hundred km
take some and leave others), points sharing coordinates or lying on a grid (equal distances:
Redis orders ties by the order its scan of the nine geohash cells found them), and edges (the
antimeridian, the poles' limits +-85.05112878, just past them). Replies are compared exactly,
order included, with one exception: COUNT n ANY stops at the first n points the scan finds,
an unspecified subset. Such a search goes with a probe, the same search without COUNT/ANY
(compared exactly): if the ANY replies differ, each must hold min(n, all) distinct points,
each one of its own server's full reply ("geoany"). ANY is never sent with STORE or
STOREDIST, whose destination later reads would compare."""

from fuzz.command import Command

OWN_GEO_KEYS = ["g0", "g1", "g2"]  # and "gdst", the destination of STORE and GEOSEARCHSTORE
# Sorted sets with arbitrary scores (never "zlex", whose scores must all stay 0 for its lex
# ranges to be defined).
SHARED_GEO_KEYS = ["z0", "z1"]
OTHER_TYPE_KEYS = ["k0", "h0", "s0", "l0"]
# (longitude, latitude), as sent.
PLACES = [
    ("13.361389", "38.115556"),  # Palermo
    ("15.087269", "37.502669"),  # Catania
    ("13.583333", "37.316667"),  # Agrigento
    ("15.556111", "38.193611"),  # Messina
    ("15.293056", "37.075000"),  # Siracusa
    ("12.5", "38.0"),
    ("14.0", "37.5"),
    ("14.0", "37.5"),  # the same point twice: equal distances
    ("14.01", "37.5"), ("13.99", "37.5"), ("14.0", "37.51"), ("14.0", "37.49"),  # a cross
    ("2.3522", "48.8566"),  # Paris
    ("-0.1276", "51.5074"),  # London
]
EDGE_POINTS = [
    ("180", "0"), ("-180", "0"), ("179.9999", "10"), ("-179.9999", "10"),
    ("0", "85.05112878"), ("0", "-85.05112878"), ("45", "85.05"), ("-45", "-85"),
    ("0", "0"), ("-0", "-0"), ("0.000001", "0.000001"), ("1e1", "1e1"),
]
BAD_POINTS = [
    ("180.0001", "0"), ("-181", "0"), ("0", "85.05112879"), ("0", "-86"), ("0", "90"),
    ("abc", "0"), ("0", ""), ("nan", "0"), ("inf", "0"), ("0", "-inf"), ("1,2", "0"),
]
GEO_MEMBERS = ["Palermo", "Catania", "Agrigento", "Messina", "Siracusa", "m1", "m2", "m3",
               "a", "b", "", "x\x00y", "edge", "pole", "Paris", "London"]
RADII = ["0", "1", "10", "50", "100", "150", "200", "250", "500", "1000", "5000", "20000",
         "0.5", "1e2", "200000"]
BAD_RADII = ["-1", "abc", "", "nan", "-0.1"]
UNITS = ["m", "km", "km", "km", "mi", "ft", "KM", "M"]
BAD_UNITS = ["yd", "", "kms", "k"]
COUNTS = ["1", "2", "3", "5", "10", "100"]
BAD_COUNTS = ["0", "-1", "abc", ""]
# The grid of BIG: a square of points 0.01 degrees apart (many equal distances from its middle).
GRID_CENTRE = (13.5, 37.8)


class GeoMakers:
    def gkey_geo(self):
        r = self.rng.random()
        if r < 0.8:
            return self.rng.choice(OWN_GEO_KEYS)
        if r < 0.9:
            return self.rng.choice(SHARED_GEO_KEYS)
        if r < 0.95:
            return "gdst"
        return self.rng.choice(OTHER_TYPE_KEYS)

    def geo_point(self, valid=False):
        r = self.rng.random()
        if r < 0.78 or valid:
            return self.rng.choice(PLACES)
        if r < 0.95:
            return self.rng.choice(EDGE_POINTS)
        return self.rng.choice(BAD_POINTS)

    def geo_member(self):
        if self.rng.random() < 0.1:
            return "grid%d" % self.rng.randint(0, 143)
        return self.rng.choice(GEO_MEMBERS)

    def geo_unit(self):
        return self.rng.choice(BAD_UNITS) if self.bad(0.03) else self.rng.choice(UNITS)

    def geo_radius(self):
        return self.rng.choice(BAD_RADII) if self.bad(0.03) else self.rng.choice(RADII)

    def geo_from(self):
        """GEOSEARCH's centre: FROMMEMBER m or FROMLONLAT lon lat (rarely both, or neither)."""
        r = self.rng.random()
        if r < 0.45:
            return [self.opt("FROMMEMBER"), self.geo_member()]
        if r < 0.97:
            return [self.opt("FROMLONLAT")] + list(self.geo_point())
        return self.rng.choice([[], ["FROMMEMBER", "a", "FROMLONLAT", "14", "37"]])

    def geo_by(self):
        r = self.rng.random()
        if r < 0.55:
            return [self.opt("BYRADIUS"), self.geo_radius(), self.geo_unit()]
        if r < 0.97:
            return [self.opt("BYBOX"), self.geo_radius(), self.geo_radius(), self.geo_unit()]
        return self.rng.choice([[], ["BYRADIUS", "10", "km", "BYBOX", "1", "1", "km"]])

    def geo_options(self, with_fields, store):
        """The trailing options in a random order: WITH*, COUNT n [ANY], ASC|DESC. Returns
        (options, the count, whether ANY)."""
        options, count, any_ = [], None, False
        parts = []
        if with_fields:
            for word in ("WITHCOORD", "WITHDIST", "WITHHASH"):
                if self.rng.random() < 0.35:
                    parts.append([self.opt(word)])
        if self.rng.random() < 0.45:
            count = self.rng.choice(BAD_COUNTS) if self.bad(0.05) else self.rng.choice(COUNTS)
            part = [self.opt("COUNT"), count]
            if not store and self.rng.random() < 0.3:
                part.append(self.opt("ANY"))
                any_ = True
            parts.append(part)
        if self.rng.random() < 0.55:
            parts.append([self.opt(self.rng.choice(["ASC", "DESC"]))])
        if self.bad(0.02):
            parts.append([self.rng.choice(["ANY", "FOO", "WITHDISTANCE", "COUNT"])])
        self.rng.shuffle(parts)
        for part in parts:
            options += part
        return options, count, any_

    def geo_cmd(self):
        op = self.rng.choices(
            ["GEOADD", "GEOPOS", "GEODIST", "GEOHASH", "GEOSEARCH", "GEOSEARCHSTORE",
             "GEORADIUS", "GEORADIUSBYMEMBER", "ZREAD", "ZREM", "BIG"],
            weights=[14, 5, 6, 4, 14, 4, 6, 5, 3, 2, 0.6])[0]
        key = self.gkey_geo()
        if op == "GEOADD":
            args = [op, key if self.rng.random() < 0.95 else self.rng.choice(OTHER_TYPE_KEYS)]
            for word in ("NX", "XX", "CH"):
                if self.rng.random() < 0.12:
                    args.append(self.opt(word))
            for _ in range(self.rng.choice([1, 1, 1, 2, 3, 5])):
                args += list(self.geo_point()) + [self.geo_member()]
            if self.bad(0.03):
                args.pop()
            return Command(args)
        if op == "GEOPOS":
            return Command([op, key] + [self.geo_member()
                                        for _ in range(self.rng.choice([0, 1, 1, 2, 3]))])
        if op == "GEOHASH":
            return Command([op, key] + [self.geo_member()
                                        for _ in range(self.rng.choice([0, 1, 2, 3]))])
        if op == "GEODIST":
            args = [op, key, self.geo_member(), self.geo_member()]
            if self.rng.random() < 0.6:
                args.append(self.geo_unit())
            if self.bad(0.02):
                args.append("km")
            return Command(args)
        if op in ("GEOSEARCH", "GEOSEARCHSTORE"):
            store = op == "GEOSEARCHSTORE"
            head = [op] + ([self.rng.choice(["gdst", "gdst", "g1", "z1"])] if store else [])
            args = head + [key] + self.geo_from() + self.geo_by()
            options, count, any_ = self.geo_options(not store or self.bad(0.05), store)
            args += options
            if store and self.rng.random() < 0.3:
                args.append(self.opt("STOREDIST"))
            return self.geo_search_command(args, count, any_)
        if op in ("GEORADIUS", "GEORADIUSBYMEMBER"):
            ro = self.rng.random() < 0.35
            name = op + ("_RO" if ro else "")
            centre = list(self.geo_point()) if op == "GEORADIUS" else [self.geo_member()]
            args = [name, key] + centre + [self.geo_radius(), self.geo_unit()]
            store = not ro and self.rng.random() < 0.2 or self.bad(0.02)
            options, count, any_ = self.geo_options(not store or self.bad(0.1), store)
            args += options
            if store:
                args += [self.opt(self.rng.choice(["STORE", "STOREDIST"])),
                         self.rng.choice(["gdst", "gdst", "g2"])]
            return self.geo_search_command(args, count, any_)
        if op == "ZREAD":
            # The geo set as a sorted set: its scores are the geohashes.
            return Command(self.rng.choice([["ZRANGE", key, "0", "-1", "WITHSCORES"],
                                            ["ZCARD", key], ["TYPE", key],
                                            ["ZSCORE", key, self.geo_member()]]))
        if op == "ZREM":
            return Command([op, key, self.geo_member()])
        # BIG: a 12 x 12 grid (past 128 members: the skiplist) plus its centre.
        args = ["GEOADD", self.rng.choice(OWN_GEO_KEYS)]
        lon0, lat0 = GRID_CENTRE
        for i in range(144):
            args += ["%.2f" % (lon0 + (i % 12 - 6) * 0.01), "%.2f" % (lat0 + (i // 12 - 6) * 0.01),
                     "grid%d" % i]
        return Command(args + ["%.2f" % lon0, "%.2f" % lat0, "centre"])

    def geo_search_command(self, args, count, any_):
        if any_ and count in COUNTS:
            # The probe: the same search, whole (COUNT n ANY taken out).
            full = list(args)
            at = [i for i in range(len(full) - 2)
                  if full[i].upper() == "COUNT" and full[i + 2].upper() == "ANY"][0]
            del full[at:at + 3]
            return Command(args, mode="geoany", pre=[full])
        return Command(args)
