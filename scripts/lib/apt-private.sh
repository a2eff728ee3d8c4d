# Sourced by scripts that fetch Debian packages outside the machine's own apt
# state: the mirror URI comes from the machine's apt sources (so no registry
# host lives in this repository) and a private apt configuration under the
# cache lets apt fetch sources or packages of another suite without touching
# /etc/apt or /var/lib/apt.  Defines mirror_uri and private_apt; no side
# effects when sourced.

# mirror_uri: print the first non-security Debian mirror URI of this machine.
mirror_uri() {
    local f uri
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        uri=$(awk '/^URIs:/{print $2; exit}' "$f")
        case "$uri" in *debian-security*|"") continue ;; esac
        case "$uri" in *debian*) echo "$uri"; return ;; esac
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        uri=$(awk '$1=="deb" && $0 !~ /security/ && $0 ~ /debian/ {for(i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//){print $i; exit}}' "$f")
        [ -n "$uri" ] && { echo "$uri"; return; }
    done
    return 1
}

# private_apt APTDIR SOURCES_LINES: write APTDIR/apt.conf with the given
# sources.list contents and export APT_CONFIG pointing at it.
private_apt() {
    local APTDIR="$1"
    mkdir -p "$APTDIR"/{lists/partial,archives/partial,etc/sources.list.d,etc/preferences.d}
    printf '%s\n' "$2" > "$APTDIR/etc/sources.list"
    cat > "$APTDIR/apt.conf" <<CONF
Dir::State "$APTDIR";
Dir::State::Lists "$APTDIR/lists";
Dir::State::status "/var/lib/dpkg/status";
Dir::Cache "$APTDIR";
Dir::Etc::SourceList "$APTDIR/etc/sources.list";
Dir::Etc::SourceParts "$APTDIR/etc/sources.list.d";
Dir::Etc::Preferences "$APTDIR/etc/preferences";
Dir::Etc::PreferencesParts "$APTDIR/etc/preferences.d";
Acquire::Check-Valid-Until "false";
Acquire::AllowInsecureRepositories "true";
APT::Sandbox::User "root";
CONF
    export APT_CONFIG="$APTDIR/apt.conf"
}
