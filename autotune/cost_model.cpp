#include "autotune/cost_model.h"

#include <xgboost/c_api.h>

#include <cmath>
#include <string>

#include "runtime/base/error.h"

namespace tessera::autotune {

namespace {

// XGBoost reports failures by return code; a failure here is a bug of ours (bad parameters or
// shapes), never the user's.
void check(int code, const char* call) {
  if (code != 0) throw InternalError(str("XGBoost ", call, " failed: ", XGBGetLastError()));
}

// Frees a DMatrix on every path out of a scope.
struct Matrix {
  DMatrixHandle handle = nullptr;
  ~Matrix() {
    if (handle) XGDMatrixFree(handle);
  }
};

std::string num(double v) { return str(v); }

}  // namespace

CostModel::CostModel(CostModelOptions options) : options_(options) {
  if (options_.nthread < 1)
    throw UserError(str("cost model: nthread must be at least 1, not ", options_.nthread));
  if (options_.rounds < 1)
    throw UserError(str("cost model: rounds must be at least 1, not ", options_.rounds));
  if (!(options_.prior_eta > 0))
    throw UserError(str("cost model: prior_eta must be > 0, not ", options_.prior_eta));
  if (!(options_.prior_weight >= 0))
    throw UserError(str("cost model: prior_weight must be >= 0, not ", options_.prior_weight));
}

CostModel::~CostModel() {
  if (booster_) XGBoosterFree(booster_);
}

void CostModel::fit(const std::vector<TrainingGroup>& groups) {
  if (booster_) {
    XGBoosterFree(booster_);
    booster_ = nullptr;
  }
  uses_prior_ = false;
  std::vector<float> data;
  std::vector<float> labels;
  std::vector<unsigned> sizes;
  std::vector<float> margins;
  bool priors = options_.prior_weight > 0;
  size_t width = 0;
  bool first = true;
  for (size_t g = 0; g < groups.size(); ++g) {
    const TrainingGroup& group = groups[g];
    if (group.features.size() != group.labels.size())
      throw UserError(str("cost model: training group ", g, " has ", group.features.size(),
                          " feature rows but ", group.labels.size(), " labels"));
    if (group.features.empty()) continue;
    if (!group.priors.empty() && group.priors.size() != group.features.size())
      throw UserError(str("cost model: training group ", g, " has ", group.features.size(),
                          " feature rows but ", group.priors.size(), " prior scores"));
    priors = priors && !group.priors.empty();
    for (float p : group.priors) margins.push_back(static_cast<float>(options_.prior_weight * p));
    for (const auto& row : group.features) {
      if (first) {
        width = row.size();
        first = false;
      }
      if (row.size() != width)
        throw UserError(str("cost model: training group ", g, " has a feature row of length ",
                            row.size(), "; earlier rows have ", width,
                            " (a transfer log of another template, or a featurizer whose length "
                            "depends on the config?)"));
      data.insert(data.end(), row.begin(), row.end());
    }
    labels.insert(labels.end(), group.labels.begin(), group.labels.end());
    sizes.push_back(static_cast<unsigned>(group.features.size()));
  }
  if (labels.empty() || width == 0) return;

  Matrix train;
  check(XGDMatrixCreateFromMat(data.data(), labels.size(), width, /*missing=*/NAN, &train.handle),
        "XGDMatrixCreateFromMat");
  check(XGDMatrixSetFloatInfo(train.handle, "label", labels.data(), labels.size()),
        "XGDMatrixSetFloatInfo(label)");
  check(XGDMatrixSetUIntInfo(train.handle, "group", sizes.data(), sizes.size()),
        "XGDMatrixSetUIntInfo(group)");
  if (priors)
    check(XGDMatrixSetFloatInfo(train.handle, "base_margin", margins.data(), margins.size()),
          "XGDMatrixSetFloatInfo(base_margin)");
  BoosterHandle booster = nullptr;
  check(XGBoosterCreate(&train.handle, 1, &booster), "XGBoosterCreate");
  const double eta = priors ? options_.prior_eta : options_.eta;
  const std::pair<const char*, std::string> params[] = {
      {"objective", "rank:pairwise"},
      {"tree_method", "exact"},
      {"nthread", std::to_string(options_.nthread)},
      {"seed", std::to_string(options_.seed)},
      {"max_depth", std::to_string(options_.max_depth)},
      {"eta", num(eta)},
      {"min_child_weight", num(options_.min_child_weight)},
      {"gamma", num(options_.gamma)},
      {"lambda", num(options_.lambda)},
      {"verbosity", "0"},
  };
  for (const auto& [name, value] : params) {
    int code = XGBoosterSetParam(booster, name, value.c_str());
    if (code != 0) {
      XGBoosterFree(booster);
      check(code, "XGBoosterSetParam");
    }
  }
  for (int i = 0; i < options_.rounds; ++i) {
    int code = XGBoosterUpdateOneIter(booster, i, train.handle);
    if (code != 0) {
      XGBoosterFree(booster);
      check(code, "XGBoosterUpdateOneIter");
    }
  }
  booster_ = booster;
  features_ = width;
  uses_prior_ = priors;
}

std::vector<float> CostModel::predict(const std::vector<float>& data, size_t rows,
                                     const std::vector<float>& priors) const {
  TESSERA_ICHECK(booster_, "predict() on an untrained cost model");
  if (data.size() != rows * features_)
    throw UserError(str("cost model: ", data.size(), " feature values for ", rows,
                        " rows; the model takes ", features_, " features per row"));
  if (uses_prior_ && priors.size() != rows)
    throw UserError(str("cost model: ", priors.size(), " prior scores for ", rows,
                        " rows; the model was trained with the tasks' prior scores and needs one "
                        "per row"));
  if (!uses_prior_ && !priors.empty())
    throw UserError("cost model: prior scores given, but the model was trained without them");
  if (rows == 0) return {};
  Matrix m;
  check(XGDMatrixCreateFromMat(data.data(), rows, features_, NAN, &m.handle),
        "XGDMatrixCreateFromMat");
  if (uses_prior_) {
    std::vector<float> margins;
    margins.reserve(rows);
    for (float p : priors) margins.push_back(static_cast<float>(options_.prior_weight * p));
    check(XGDMatrixSetFloatInfo(m.handle, "base_margin", margins.data(), rows),
          "XGDMatrixSetFloatInfo(base_margin)");
  }
  const char* config =
      R"({"type":0,"training":false,"iteration_begin":0,"iteration_end":0,"strict_shape":false})";
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  check(XGBoosterPredictFromDMatrix(booster_, m.handle, config, &shape, &dim, &out),
        "XGBoosterPredictFromDMatrix");
  return std::vector<float>(out, out + rows);
}

std::vector<float> CostModel::predict(const std::vector<std::vector<float>>& rows,
                                     const std::vector<float>& priors) const {
  std::vector<float> data;
  for (const auto& r : rows) {
    if (r.size() != features_)
      throw UserError(
          str("cost model: a feature row of length ", r.size(), "; the model takes ", features_));
    data.insert(data.end(), r.begin(), r.end());
  }
  return predict(data, rows.size(), priors);
}

}  // namespace tessera::autotune
