#!/bin/bash
# Sources itself with no guard: bash would recurse until it fails (written for these tests).
source ./sources_itself.sh
