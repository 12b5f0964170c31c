# Included by CTest when it lists the tests, after gtest_discover_tests has found them
# (PORTLA_TEST_LISTS names the variables that hold each binary's tests): the COST of the long
# ones, so that `ctest -j` starts them first on a fresh build (with no timings of an earlier run)
# instead of last, where they would run on with the other cores idle; and one lock for the
# OpenCL batched-solver tests, which build the same programs (the double ones all launch with
# work-groups of 32 on a CPU): run one after the other, each after the first finds them in the
# driver's program cache instead of compiling them again beside it.
#
# Costs: seconds with empty caches on a 2-core VM (PoCL 3.1), rounded.
set(portla_test_costs
  [=[^test_backend_opencl\.BatchTest\.SpdBatchEverySolverPrecondFormatDouble$]=] 150
  [=[^test_backend_opencl\.BatchTest\.NonsymmetricBatchFloat$]=] 60
  [=[^test_backend_opencl\.BatchTest\..*EverySolverPrecondFormat]=] 40
  [=[^test_batch_direct_opencl\.]=] 30
  [=[^dist_batch_cli\.]=] 25
  [=[^test_backend_opencl\.BatchTest\.]=] 20
  [=[_opencl\.]=] 5)
set(portla_program_lock
  [=[^test_backend_opencl\.BatchTest\..*(EverySolverPrecondFormat|Spill|Placement|Pele)]=])

foreach(list IN LISTS PORTLA_TEST_LISTS)
  foreach(test IN LISTS ${list})
    set(rules ${portla_test_costs})
    while(rules)
      list(POP_FRONT rules regex cost)
      if(test MATCHES "${regex}")
        set_tests_properties("${test}" PROPERTIES COST ${cost})
        break()
      endif()
    endwhile()
    if(test MATCHES "${portla_program_lock}")
      set_tests_properties("${test}" PROPERTIES RESOURCE_LOCK opencl_batch_programs)
    endif()
  endforeach()
endforeach()
