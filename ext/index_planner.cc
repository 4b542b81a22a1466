// sqlite3_index_info <-> core/plan (see index_planner.h for the mapping).
#include "ext/index_planner.h"

#include <cstring>
#include <string>

#include "ext/limit_pushdown.h"

namespace tuplekv::ext {

namespace {

int column_attr(const std::vector<int>& v, int column) {
  return column >= 0 && static_cast<size_t>(column) < v.size() ? v[static_cast<size_t>(column)] : -1;
}

}  // namespace

int best_index(const IndexShape& shape, sqlite3_index_info* info, int idx_num) {
  PlanRequest req;
  req.columns = shape.columns;
  req.unique = shape.unique;
  req.table_rows = shape.table_rows;
  std::vector<int> source;  // req.constraints[k] is aConstraint[source[k]]
  std::vector<bool> prefix_usable(shape.columns.size(), false);
  std::vector<bool> eq_usable(shape.columns.size(), false);
  std::vector<bool> prefix_waiting(shape.columns.size(), false);  // only unusable = so far
  std::vector<bool> prefix_constant(shape.columns.size(), false);  // a usable = (not IN)

  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& in = info->aConstraint[i];
    PlanConstraint c;
    c.usable = in.usable != 0;
    int pos = column_attr(shape.key_position, in.iColumn);
    const int prefix_pos = column_attr(shape.prefix_of, in.iColumn);
    // A position that only holds BLOBs compares them bytewise under any
    // collation; elsewhere another collation leaves the term to SQLite
    // (kOther). LIKE and GLOB have their own case rules.
    const bool blob_only_pos =
        pos >= 0 && static_cast<size_t>(pos) < shape.blob_only.size() && shape.blob_only[static_cast<size_t>(pos)];
    if (pos >= 0 && !blob_only_pos && in.op != SQLITE_INDEX_CONSTRAINT_LIKE &&
        in.op != SQLITE_INDEX_CONSTRAINT_GLOB && in.op != SQLITE_INDEX_CONSTRAINT_ISNULL &&
        in.op != SQLITE_INDEX_CONSTRAINT_ISNOTNULL && !compares_binary(info, i)) {
      pos = -1;
    }
    sqlite3_value* rhs = nullptr;
    switch (in.op) {
      case SQLITE_INDEX_CONSTRAINT_EQ:
      case SQLITE_INDEX_CONSTRAINT_IS:
        if (pos >= 0) {
          c.column = pos;
          // Only = can be an IN list; ask SQLite whether it can hand the
          // whole list over at once.
          c.op = in.op == SQLITE_INDEX_CONSTRAINT_EQ && sqlite3_vtab_in(info, i, -1) ? PlanOp::kIn
                                                                                     : PlanOp::kEq;
          if (c.usable) eq_usable[static_cast<size_t>(pos)] = true;
        } else if (prefix_pos >= 0) {
          c.column = prefix_pos;
          // An IN list is taken whole: SQLite would call xFilter once per
          // value and return a key under two of them twice. (IS p is = p:
          // a NULL p matches nothing either way.)
          c.op = in.op == SQLITE_INDEX_CONSTRAINT_EQ && sqlite3_vtab_in(info, i, -1) ? PlanOp::kPrefixIn
                                                                                     : PlanOp::kPrefix;
          (c.usable ? prefix_usable : prefix_waiting)[static_cast<size_t>(prefix_pos)] = true;
          if (c.usable && c.op == PlanOp::kPrefix) prefix_constant[static_cast<size_t>(prefix_pos)] = true;
        }
        break;
      case SQLITE_INDEX_CONSTRAINT_GT:
      case SQLITE_INDEX_CONSTRAINT_GE:
      case SQLITE_INDEX_CONSTRAINT_LT:
      case SQLITE_INDEX_CONSTRAINT_LE:
        if (pos >= 0) {
          const bool known = sqlite3_vtab_rhs_value(info, i, &rhs) == SQLITE_OK && rhs != nullptr;
          if (blob_only_pos && known && sqlite3_value_type(rhs) != SQLITE_BLOB &&
              sqlite3_value_type(rhs) != SQLITE_NULL) {
            break;  // kOther: see IndexShape::blob_only
          }
          c.maybe_loosened = maybe_row_value(in.op, known);
          c.column = pos;
          c.op = in.op == SQLITE_INDEX_CONSTRAINT_GT   ? PlanOp::kGt
                 : in.op == SQLITE_INDEX_CONSTRAINT_GE ? PlanOp::kGe
                 : in.op == SQLITE_INDEX_CONSTRAINT_LT ? PlanOp::kLt
                                                       : PlanOp::kLe;
        }
        break;
      case SQLITE_INDEX_CONSTRAINT_LIKE:
      case SQLITE_INDEX_CONSTRAINT_GLOB:
        if (pos >= 0 && shape.columns[static_cast<size_t>(pos)].patterns) {
          c.column = pos;
          c.op = in.op == SQLITE_INDEX_CONSTRAINT_LIKE ? PlanOp::kLike : PlanOp::kGlob;
          // A literal pattern lets the planner skip one without a prefix.
          if (sqlite3_vtab_rhs_value(info, i, &rhs) == SQLITE_OK && rhs != nullptr &&
              (sqlite3_value_type(rhs) == SQLITE_TEXT || sqlite3_value_type(rhs) == SQLITE_BLOB)) {
            const auto* p = sqlite3_value_text(rhs);
            if (p != nullptr) {
              c.known_text.emplace(reinterpret_cast<const char*>(p),
                                   static_cast<size_t>(sqlite3_value_bytes(rhs)));
            }
          }
        }
        break;
      case SQLITE_INDEX_CONSTRAINT_ISNULL:
        if (pos >= 0) {
          c.column = pos;
          c.op = PlanOp::kIsNull;
        }
        break;
      case SQLITE_INDEX_CONSTRAINT_ISNOTNULL:
        // Always true for a key position, so it cannot drop rows after a
        // pushed-down LIMIT: leave it out of the request entirely (SQLite
        // still evaluates it).
        if (pos >= 0) continue;
        break;
      case SQLITE_INDEX_CONSTRAINT_LIMIT:
      case SQLITE_INDEX_CONSTRAINT_OFFSET:
        // Not on a SQLite that may have withheld a WHERE term (see
        // limit_pushdown.h): left out, SQLite applies it.
        if (!limit_pushdown_allowed()) continue;
        c.op = in.op == SQLITE_INDEX_CONSTRAINT_LIMIT ? PlanOp::kLimit : PlanOp::kOffset;
        if (sqlite3_vtab_rhs_value(info, i, &rhs) == SQLITE_OK && rhs != nullptr &&
            sqlite3_value_type(rhs) == SQLITE_INTEGER) {
          c.known_int = sqlite3_value_int64(rhs);
        }
        break;
      default:
        break;
    }
    req.constraints.push_back(std::move(c));
    source.push_back(i);
  }

  // A prefix column has a value only when its `=` chooses the scan, so a
  // plan that leaves `t.prefix = u.p` to SQLite (scanning t before u) would
  // compare a value that does not exist: refuse it, and SQLite puts t
  // where the term can be used.
  for (size_t pos = 0; pos < prefix_waiting.size(); ++pos) {
    if (prefix_waiting[pos] && !prefix_usable[pos]) return SQLITE_CONSTRAINT;
  }

  // ORDER BY. A hidden prefix column is constant within one xFilter call
  // when the plan uses its `=` (its position is reached: every position
  // before it has an equality), so sorting by it is free.
  for (int k = 0; k < info->nOrderBy; ++k) {
    const int col = info->aOrderBy[k].iColumn;
    const bool desc = info->aOrderBy[k].desc != 0;
    const int pos = column_attr(shape.key_position, col);
    const int prefix_pos = column_attr(shape.prefix_of, col);
    if (pos >= 0) {
      req.order_by.push_back(PlanOrder{pos, desc});
      continue;
    }
    if (prefix_pos >= 0 && prefix_constant[static_cast<size_t>(prefix_pos)]) {
      bool reached = true;
      for (int q = 0; q < prefix_pos; ++q) reached = reached && eq_usable[static_cast<size_t>(q)];
      if (reached) continue;
    }
    req.order_by.push_back(PlanOrder{-1, desc});
  }

  const Plan plan = plan_scan(req);

  for (size_t k = 0; k < plan.terms.size(); ++k) {
    const int i = source[static_cast<size_t>(plan.terms[k].constraint)];
    info->aConstraintUsage[i].argvIndex = static_cast<int>(k) + 1;
    info->aConstraintUsage[i].omit = plan.terms[k].omit ? 1 : 0;
    if (plan.terms[k].op == PlanOp::kIn || plan.terms[k].op == PlanOp::kPrefixIn) {
      sqlite3_vtab_in(info, i, 1);
    }
  }
  info->orderByConsumed = plan.order_consumed ? 1 : 0;
  if (plan.unique) info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  info->estimatedCost = plan.cost;
  info->estimatedRows = static_cast<sqlite3_int64>(plan.rows);
  info->idxNum = idx_num;
  const std::string text = describe(plan, shape.columns);
  info->idxStr = sqlite3_mprintf("%s", text.c_str());
  if (info->idxStr == nullptr) return SQLITE_NOMEM;
  info->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

Status read_filter_args(const Plan& plan, int argc, sqlite3_value** argv,
                        FilterValueReader* reader, std::vector<FilterArg>* args) {
  if (static_cast<size_t>(argc) != plan.terms.size()) {
    return Status::Internal("tuplekv internal error: xFilter got " + std::to_string(argc) +
                            " arguments for a plan of " + std::to_string(plan.terms.size()));
  }
  if (args->size() < plan.terms.size()) args->resize(plan.terms.size());
  for (size_t k = 0; k < plan.terms.size(); ++k) {
    const PlanTerm& t = plan.terms[k];
    FilterArg& a = (*args)[k];
    sqlite3_value* v = argv[k];
    a.count = 0;
    switch (t.op) {
      case PlanOp::kLimit:
      case PlanOp::kOffset:
        a.number = sqlite3_value_int64(v);
        break;
      case PlanOp::kIsNull:
        break;  // the builder knows its value
      case PlanOp::kIs:
        if (sqlite3_value_type(v) == SQLITE_NULL) {
          // The null element, as IS NULL (whose argument is NULL too).
          FilterValue& null = a.single();
          null.kind = FilterValue::Kind::kBytes;
          null.bytes.assign(kNullElement);
        } else {
          // Any other value: = reads it.
          PlanTerm eq = t;
          eq.op = PlanOp::kEq;
          TUPLEKV_RETURN_IF_ERROR(reader->read_term(eq, v, &a));
        }
        break;
      case PlanOp::kIn:
      case PlanOp::kPrefixIn: {
        sqlite3_value* x = nullptr;
        int rc = sqlite3_vtab_in_first(v, &x);
        while (rc == SQLITE_OK && x != nullptr) {
          const size_t n = a.count + 1;
          TUPLEKV_RETURN_IF_ERROR(reader->read(t, x, &a.resize(n)[n - 1]));
          rc = sqlite3_vtab_in_next(v, &x);
        }
        if (rc != SQLITE_OK && rc != SQLITE_DONE) {
          return Status::Native(rc == SQLITE_NOMEM ? StatusCode::kNoMemory : StatusCode::kInternal,
                                rc, "tuplekv: cannot read the IN list");
        }
        break;
      }
      default:
        TUPLEKV_RETURN_IF_ERROR(reader->read_term(t, v, &a));
        break;
    }
  }
  return Status::OK();
}

Result<std::shared_ptr<const Plan>> PlanCache::get(const char* idx_str) {
  if (idx_str == nullptr) idx_str = "";
  for (const Entry& e : entries_) {
    if (std::strcmp(e.text.c_str(), idx_str) == 0) return e.plan;
  }
  Result<Plan> parsed = parse_plan(idx_str, columns_);
  if (!parsed.ok()) return parsed.status();
  auto plan = std::make_shared<const Plan>(std::move(parsed).value());
  Entry entry{idx_str, plan};
  if (entries_.size() < kEntries) {
    entries_.push_back(std::move(entry));
  } else {
    entries_[next_victim_] = std::move(entry);
    next_victim_ = (next_victim_ + 1) % kEntries;
  }
  return std::shared_ptr<const Plan>(plan);
}

}  // namespace tuplekv::ext
