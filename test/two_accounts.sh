# two_accounts.sh -- two real accounts in one shared directory, for the
# tests of docs/security.md (sourced by test/t_security_*.sh).
#
# An attacker account plants names in a shared directory; a victim account
# then uses h5sf there as the docs say.  Both are plain uids (no passwd
# entry needed), reached from root with setpriv(1) from util-linux.
#
#   ta_setup            make $TA (a fresh directory) with:
#                         $TA/shared   mode 1777, as /tmp or a scratch area
#                         $TA/group    mode 0777, no sticky bit, as a
#                                      group-writable project directory
#                         $TA/home     the victim's, mode 0700
#                         $TA/ahome    the attacker's, mode 0700
#   as_victim CMD...    run CMD as the victim (uid $TA_VICTIM)
#   as_attacker CMD...  run CMD as the attacker (uid $TA_ATTACKER)
#   ta_fail MSG         say MSG and exit 1
#
# The victim keeps one capability, CAP_DAC_READ_SEARCH: HDF5 and MPI are
# installed under /root (~/.cache/h5sf, mode 0700), which a plain uid
# cannot read.  It lets the victim read and search any file, never write
# one, so it hides no write, delete or mode the tests check; reads the
# tests check are the attacker's, who has no capability.
#
# Without root or setpriv the test exits 77 (ctest SKIP_RETURN_CODE).
set -u
TA_VICTIM=${H5SF_TEST_VICTIM_UID:-61001}
TA_ATTACKER=${H5SF_TEST_ATTACKER_UID:-61002}

ta_fail() { echo "FAIL: $*" >&2; exit 1; }

ta_setup() {
    if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
        echo "SKIP: needs root and setpriv(1) to act as two accounts" >&2
        exit 77
    fi
    TA=$(mktemp -d "${H5SF_TEST_DIR:-/tmp}/h5sf-ta.XXXXXX") || exit 1
    chmod 0755 "$TA"
    mkdir "$TA/shared" "$TA/group" "$TA/home" "$TA/ahome" "$TA/home/tmp" "$TA/ahome/tmp"
    chmod 1777 "$TA/shared"
    chmod 0777 "$TA/group"
    chown -R "$TA_VICTIM:$TA_VICTIM" "$TA/home"
    chown -R "$TA_ATTACKER:$TA_ATTACKER" "$TA/ahome"
    chmod 0700 "$TA/home" "$TA/ahome"
    trap 'rm -rf "$TA"' EXIT
}

# Open MPI as a plain uid needs neither of its root switches; its session
# directory goes to the account's own TMPDIR.
_ta_run() {
    local uid=$1 home=$2; shift 2
    setpriv --reuid="$uid" --regid="$uid" --clear-groups "${_TA_CAPS[@]}" \
        env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
        HOME="$home" TMPDIR="$home/tmp" OMPI_MCA_orte_tmpdir_base="$home/tmp" "$@"
}
as_victim() {
    _TA_CAPS=(--inh-caps=+dac_read_search --ambient-caps=+dac_read_search)
    _ta_run "$TA_VICTIM" "$TA/home" "$@"
}
as_attacker() {
    _TA_CAPS=()
    _ta_run "$TA_ATTACKER" "$TA/ahome" "$@"
}
