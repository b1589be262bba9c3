#include "server/router.h"

#include <gtest/gtest.h>

namespace hpt::server {
namespace {

HttpResponse Echo(const HttpRequest& r) {
  nlohmann::json vars = r.vars;
  return JsonResponse(200, vars);
}

Router MakeRouter() {
  Router router;
  router.Add("GET", "/api/v1/experiments/{name}", Echo);
  router.Add("POST", "/api/v1/experiments/{name}:stop", Echo);
  router.Add("POST", "/api/v1/experiments/{name}/trials/{trial}:complete", Echo);
  router.Add("GET", "/api/v1/experiments/{name}/trials/{trial}", Echo);
  return router;
}

TEST(RouterTest, MatchesVariablesAndVerbs) {
  Router router = MakeRouter();
  HttpRequest req{"POST", "/api/v1/experiments/exp-1/trials/exp-1-3:complete"};
  HttpResponse r = router.Dispatch(req);
  EXPECT_EQ(r.status, 200);
  auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["name"], "exp-1");
  EXPECT_EQ(body["trial"], "exp-1-3");

  HttpRequest stop{"POST", "/api/v1/experiments/exp-1:stop"};
  EXPECT_EQ(nlohmann::json::parse(router.Dispatch(stop).body)["name"], "exp-1");
}

TEST(RouterTest, UnknownPathIs404AndWrongMethodIs405) {
  Router router = MakeRouter();
  HttpRequest missing{"GET", "/api/v1/nothing"};
  EXPECT_EQ(router.Dispatch(missing).status, 404);
  HttpRequest wrong{"DELETE", "/api/v1/experiments/exp-1/trials/t"};
  HttpResponse r = router.Dispatch(wrong);
  EXPECT_EQ(r.status, 405);
  EXPECT_NE(r.body.find("allowed: GET"), std::string::npos);
}

TEST(RouterTest, VerbIsNotPartOfTheName) {
  Router router = MakeRouter();
  HttpRequest req{"GET", "/api/v1/experiments/exp:stop"};
  EXPECT_EQ(router.Dispatch(req).status, 405);  // only POST has :stop
  HttpRequest odd{"POST", "/api/v1/experiments/a:b:stop"};
  EXPECT_EQ(router.Dispatch(odd).status, 404);
}

TEST(RouterTest, ListsRoutes) {
  EXPECT_EQ(MakeRouter().Routes().size(), 4u);
}

}  // namespace
}  // namespace hpt::server
