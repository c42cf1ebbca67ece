# Exporter suite: the real `rdmatop exporter` on loopback, checked with curl, promtool and a
# real Prometheus server (docs/exporter.md). Tests whose tools are missing exit 77 (skipped).
set(_exporter_dir ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME exporter.http COMMAND ${_exporter_dir}/http_test.sh $<TARGET_FILE:rdmatop>)
add_test(NAME exporter.prometheus_storm
         COMMAND ${_exporter_dir}/prometheus_storm_test.sh $<TARGET_FILE:rdmatop>)
add_test(NAME exporter.deploy COMMAND ${_exporter_dir}/deploy_test.sh $<TARGET_FILE:rdmatop>)
add_test(NAME exporter.demo COMMAND ${_exporter_dir}/demo_test.sh $<TARGET_FILE:rdmatop>)
add_test(NAME exporter.load COMMAND ${_exporter_dir}/load_test.sh $<TARGET_FILE:rdmatop>)
add_test(NAME exporter.replay COMMAND ${_exporter_dir}/replay_test.sh $<TARGET_FILE:rdmatop>)
add_test(NAME exporter.web_config
         COMMAND ${_exporter_dir}/web_config_test.sh $<TARGET_FILE:rdmatop>)
add_test(NAME exporter.listen COMMAND ${_exporter_dir}/listen_test.sh $<TARGET_FILE:rdmatop>)
set_tests_properties(exporter.http exporter.prometheus_storm exporter.deploy exporter.demo
                     exporter.load exporter.replay exporter.web_config exporter.listen
                     PROPERTIES LABELS exporter SKIP_RETURN_CODE 77 TIMEOUT 300)
# #22: hostile and slow clients (regression), and the load test (500 scrapers, 1,000 idle
# sockets, a wrong-password flood; 30 s, label "load" too).
add_test(NAME exporter.hostile COMMAND ${_exporter_dir}/hostile_test.sh $<TARGET_FILE:rdmatop>)
add_test(NAME exporter.flood COMMAND ${_exporter_dir}/flood_test.sh $<TARGET_FILE:rdmatop>)
set_tests_properties(exporter.hostile PROPERTIES LABELS exporter SKIP_RETURN_CODE 77 TIMEOUT 120)
set_tests_properties(exporter.flood PROPERTIES LABELS "exporter;load" SKIP_RETURN_CODE 77
                     TIMEOUT 180)
add_test(NAME exporter.probe_histogram
         COMMAND ${_exporter_dir}/probe_histogram_test.sh $<TARGET_FILE:rdmatop>)
set_tests_properties(exporter.probe_histogram PROPERTIES LABELS exporter SKIP_RETURN_CODE 77
                     TIMEOUT 300)
# Four demo exporters as one fleet under one real Prometheus with the fleet rules (issue #20).
add_test(NAME exporter.fleet COMMAND ${_exporter_dir}/fleet_test.sh $<TARGET_FILE:rdmatop>)
set_tests_properties(exporter.fleet PROPERTIES LABELS exporter SKIP_RETURN_CODE 77 TIMEOUT 300)
# The documented TLS recipe: stunnel in front of the exporter, Prometheus over https.
add_test(NAME exporter.tls_proxy COMMAND ${_exporter_dir}/tls_proxy_test.sh $<TARGET_FILE:rdmatop>)
set_tests_properties(exporter.tls_proxy PROPERTIES LABELS exporter SKIP_RETURN_CODE 77 TIMEOUT 300)
# The /metrics exposition per fixture host against its golden (RDMATOP_UPDATE_GOLDEN=1 updates).
add_test(NAME exporter.metrics_golden
         COMMAND ${_exporter_dir}/metrics_golden_test.sh $<TARGET_FILE:rdmatop>)
set_tests_properties(exporter.metrics_golden PROPERTIES LABELS exporter SKIP_RETURN_CODE 77
                     TIMEOUT 120)
