# attack: a tree in the work dir, /tmp and /dev/shm whose directories are swapped
#   for symbolic links out of the box (the executor's folder, /etc, /usr/bin, /,
#   /proc/1/root) at every depth, a real directory 200 deep with a link to / at
#   the bottom, a real directory moved aside and a link put in its place, and
#   mode-000 directories holding links: the wipe descends real directories only
#   and unlinks the links themselves. (Limits leave room for gVisor: 2.6 s of CPU there.)
# language: bash
# expect: accepted
# expected_output: planted
# limits: {"time_limit_s": 8, "wall_time_limit_s": 12, "memory_limit_mb": 64}
set -e
for root in "$HOME" /tmp /dev/shm; do
    mkdir -p "$root/t/a/b/c"
    ln -s /opt/rewardbox/executor "$root/t/exe"
    ln -s /etc "$root/t/a/etc"
    ln -s /usr/bin "$root/t/a/b/bin"
    ln -s / "$root/t/a/b/c/root"
    ln -s /proc/1/root "$root/t/a/b/c/pid1root"
    mv "$root/t/a/b/c" "$root/t/a/b/c.real"
    ln -s /opt/rewardbox "$root/t/a/b/c"
    chmod 000 "$root/t/a/b/c.real"
done
deep=$HOME/deep
for i in $(seq 200); do deep=$deep/d; done
mkdir -p "$deep"
ln -s / "$deep/root"
ln -s /opt/rewardbox/executor/server.py "$deep/server.py"
chmod 000 "$HOME/deep/d/d"
echo planted
