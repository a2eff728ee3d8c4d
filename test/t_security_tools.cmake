# t_security_tools: the tools with untrusted files and shared directories
# (docs/security.md); test/t_security_tools.sh does the work, one case a
# test, label "tools":
#   security_tools_accounts  two real accounts (exit 77, skipped, without
#                            root and setpriv): h5sf-mv -C of the attacker's
#                            mode-4755 set gives 0644 / 0600 (umask 022 /
#                            077); a program planted as a stub is refused; a
#                            subfile symlinked to the victim's file is refused
#   security_tools_modes     h5sf-fuse (--in-place): never more open than the
#                            stub, the subfiles or the umask
#   security_tools_mvlink    h5sf-mv -f / h5sf-split -f over a symlink
#   security_tools_eof       a forged superblock EOF; RLIMIT_FSIZE
#   security_tools_overflow  stripe_size x stripe_count past 2^64
#   security_tools_escape    control bytes in names are printed escaped
#   security_tools_fifo      FIFOs and symlinks as subfile, config, stub
# A few seconds each, no MPI.
foreach(case accounts modes mvlink eof overflow escape fifo)
  add_test(NAME security_tools_${case} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t_security_tools.sh ${case})
  set_tests_properties(security_tools_${case} PROPERTIES
                       ENVIRONMENT "${H5SF_MPI_TEST_ENV};T_BIN=${CMAKE_BINARY_DIR}/bin;T_WORK=${CMAKE_CURRENT_BINARY_DIR}/work/security_tools_${case};T_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data/superblock"
                       TIMEOUT 120 LABELS "tools;asan" SKIP_RETURN_CODE 77)
endforeach()
