// DEBUG DIGEST and DEBUG DIGEST-VALUE: Redis 7.0's digests of the data set and of single values
// (debug.c's computeDatasetDigest and xorObjectDigest), computed the same way from the same
// logical content, so a warden and a redis-server holding the same data answer the same 40 hex
// digits. Orderless parts (keys, set members, hash fields, sorted-set members) are XORed
// together, ordered ones (list elements, stream entries) mixed in sequence; a deadline adds
// "!!expire!!", and consumer groups add nothing.
#pragma once

#include <string>

#include "storage/databases.h"

namespace warden::server {

// The 40 hex digits for every database (40 zeros when all are empty). Keys past their deadline
// that are still held count, as in Redis.
std::string DatasetDigest(const storage::Databases& dbs);

// The 40 hex digits of one value, its deadline included; 40 zeros for no entry.
std::string ValueDigest(const storage::Entry* entry);

}  // namespace warden::server
