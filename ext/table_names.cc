#include "ext/table_names.h"

#include <vector>

namespace tuplekv::ext {

namespace {

Status read_error(sqlite3* db, int rc) {
  return Status::Native(StatusCode::kIOError, rc,
                        std::string("cannot read the schema: ") + sqlite3_errmsg(db));
}

// The attached schemas in the order a bare name is looked up.
Status schemas_in_lookup_order(sqlite3* db, std::vector<std::string>* out) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_database_list ORDER BY seq", -1, &stmt,
                              nullptr);
  if (rc != SQLITE_OK) return read_error(db, rc);
  std::vector<std::string> attached;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const auto* z = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    if (z != nullptr) attached.emplace_back(z);
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return read_error(db, rc);
  out->clear();
  for (const std::string& s : attached) {
    if (sqlite3_stricmp(s.c_str(), "temp") == 0) out->push_back(s);
  }
  for (const std::string& s : attached) {
    if (sqlite3_stricmp(s.c_str(), "temp") != 0) out->push_back(s);
  }
  return Status::OK();
}

Status schema_has_table(sqlite3* db, const std::string& schema, const std::string& name, bool* has) {
  *has = false;
  char* sql = sqlite3_mprintf(
      "SELECT 1 FROM \"%w\".sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE",
      schema.c_str());
  if (sql == nullptr) return Status::NoMemory();
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return read_error(db, rc);
  sqlite3_bind_text(stmt, 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
  rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return read_error(db, rc);
  *has = rc == SQLITE_ROW;
  return Status::OK();
}

}  // namespace

Status resolve_table_name(sqlite3* db, std::string_view qualified, TableName* out, bool* found) {
  *found = false;
  std::vector<std::string> schemas;
  TUPLEKV_RETURN_IF_ERROR(schemas_in_lookup_order(db, &schemas));
  const size_t dot = qualified.find('.');
  if (dot != std::string_view::npos) {
    const std::string wanted(qualified.substr(0, dot));
    for (const std::string& s : schemas) {
      if (sqlite3_stricmp(s.c_str(), wanted.c_str()) != 0) continue;
      out->name = std::string(qualified.substr(dot + 1));
      TUPLEKV_RETURN_IF_ERROR(schema_has_table(db, s, out->name, found));
      out->schema = s;
      return Status::OK();
    }
  }
  out->name = std::string(qualified);
  for (const std::string& s : schemas) {
    TUPLEKV_RETURN_IF_ERROR(schema_has_table(db, s, out->name, found));
    if (*found) {
      out->schema = s;
      return Status::OK();
    }
  }
  return Status::OK();
}

}  // namespace tuplekv::ext
