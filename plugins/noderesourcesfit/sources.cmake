# NodeResourcesFit's sources, listed once for the plugin (CMakeLists.txt here) and for the
# static link of the plugin-boundary benchmark (bench/CMakeLists.txt).
set(SCHEDHOST_NODERESOURCESFIT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/fit.cc
  ${CMAKE_CURRENT_LIST_DIR}/fit_score.cc
  ${CMAKE_CURRENT_LIST_DIR}/fit_events.cc
  ${CMAKE_CURRENT_LIST_DIR}/args.cc
  ${CMAKE_CURRENT_LIST_DIR}/least_allocated.cc
  ${CMAKE_CURRENT_LIST_DIR}/most_allocated.cc
  ${CMAKE_CURRENT_LIST_DIR}/requested_to_capacity_ratio.cc)
