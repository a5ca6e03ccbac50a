#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The EventDesk developers
# SPDX-License-Identifier: Apache-2.0
# Proves that scripts/check-include-graph.sh finds what it is there to find (ctest:
# include_graph_check): it runs the check on small generated source trees, a clean one and ones
# with a planted cycle, an include against the layering or a directory the layer table does not
# know, and compares the exit status and the report with what each tree must give.
#
#   tests/structure/check-include-graph-test.sh [CHECK]   CHECK: the script under test (default:
#                                                         scripts/check-include-graph.sh of this tree)
set -uo pipefail

check=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/check-include-graph.sh}
source "$(dirname "${BASH_SOURCE[0]}")/self-check.sh"


# A clean tree in the shape of EventDesk's: core/ is an include directory (like
# eventdesk_core_base's), ui/ one (like the views' ${CMAKE_CURRENT_SOURCE_DIR}/..). It holds what
# the check must not report: includes down the layers, a .cpp including its own header, moc output,
# a commented-out include, a system include.
clean_tree() {
    local tree=$work/$1
    put "$tree" core/CMakeLists.txt \
        'qt_add_library(eventdesk_core_base STATIC Expected.h)' \
        'target_include_directories(eventdesk_core_base PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})'
    put "$tree" ui/common/CMakeLists.txt \
        'target_include_directories(eventdesk_ui_common' \
        '    PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/..) # a call over two lines'
    put "$tree" core/Expected.h '#pragma once'
    put "$tree" core/model/Topic.h '#pragma once' '#include "../Expected.h"'
    put "$tree" core/model/Topic.cpp '#include "Topic.h"' '#include <QString>' \
        '// #include "../engine/Engine.h" is what the model must never do' '#include "Topic.moc"'
    put "$tree" core/rules/RetryPlanner.h '#pragma once' '#include "../model/Topic.h"'
    put "$tree" core/engine/Engine.h '#pragma once' '#  include "../rules/RetryPlanner.h"'
    put "$tree" core/endpoint/TopicEndpoint.cpp '#include "engine/Engine.h"'
    put "$tree" ui/common/Format.h '#pragma once' '#include "rules/RetryPlanner.h"'
    put "$tree" ui/editor/Editor.cpp '#include "common/Format.h"'
    put "$tree" tests/unit/tst_topic.cpp '#include "model/Topic.h"'
    echo "$tree"
}


tree=$(clean_tree clean)
expect "a clean tree passes" 0 "$tree" \
    "OK: no include cycles, no includes against the layering" \
    "include graph: 9 files, 9 quoted includes, 8 of them to files of the tree"

tree=$(clean_tree header-cycle)
put "$tree" core/model/Filter.h '#pragma once' '#include "Topic.h"'
put "$tree" core/model/Topic.h '#pragma once' '#include "../Expected.h"' '#include "Filter.h"'
expect "two headers including each other are a cycle" 1 "$tree" \
    "  core/model/Topic -> core/model/Filter -> core/model/Topic" \
    "      core/model/Filter.h:2: #include \"Topic.h\"" \
    "      core/model/Topic.h:3: #include \"Filter.h\""

tree=$(clean_tree twin-cycle)
put "$tree" core/deadletters/DeadLetterRouter.h '#pragma once'
put "$tree" core/deadletters/DeadLetterRouter.cpp '#include "DeadLetterRouter.h"' '#include "AzureBlobSink.h"'
put "$tree" core/deadletters/AzureBlobSink.h '#pragma once' '#include "DeadLetterRouter.h"'
expect "a .cpp including a header that includes the .cpp's own header is a cycle" 1 "$tree" \
    "  core/deadletters/AzureBlobSink -> core/deadletters/DeadLetterRouter -> core/deadletters/AzureBlobSink" \
    "      core/deadletters/AzureBlobSink.h:2: #include \"DeadLetterRouter.h\"" \
    "      core/deadletters/DeadLetterRouter.cpp:2: #include \"AzureBlobSink.h\"" \
    "FAILED: 1 cycles, 0 includes against the layering, 0 directories with no layer, 0 ambiguous includes"

tree=$(clean_tree long-cycle)
put "$tree" core/store/A.h '#pragma once' '#include "B.h"'
put "$tree" core/store/B.h '#pragma once' '#include "C.h"'
put "$tree" core/store/C.cpp '#include "C.h"' '#include "A.h"'
put "$tree" core/store/C.h '#pragma once'
expect "a cycle through three components is reported with its path" 1 "$tree" \
    "  core/store/A -> core/store/B -> core/store/C -> core/store/A"

tree=$(clean_tree upward-relative)
put "$tree" core/model/Topic.h '#pragma once' '#include "../engine/Engine.h"'
expect "the model including the engine is against the layering" 1 "$tree" \
    "  core/model/Topic.h:2: #include \"../engine/Engine.h\"" \
    "      core/model (layer 1) -> core/engine (layer 5): a higher layer"

tree=$(clean_tree upward-include-dir)
put "$tree" core/keychain/KeychainSecretStore.h '#pragma once' '#include "engine/SecretResolver.h"'
put "$tree" core/engine/SecretResolver.h '#pragma once'
expect "an upward include found through an include directory" 1 "$tree" \
    "  core/keychain/KeychainSecretStore.h:2: #include \"engine/SecretResolver.h\"" \
    "      core/keychain (layer 4) -> core/engine (layer 5): a higher layer"

tree=$(clean_tree engine-into-endpoint)
put "$tree" core/engine/Engine.cpp '#include "Engine.h"' '#include "../endpoint/TopicEndpoint.h"'
put "$tree" core/endpoint/TopicEndpoint.h '#pragma once'
expect "the engine including the endpoint (the layer above, which implements its interfaces)" 1 "$tree" \
    "  core/engine/Engine.cpp:2: #include \"../endpoint/TopicEndpoint.h\"" \
    "      core/engine (layer 5) -> core/endpoint (layer 6): a higher layer"

tree=$(clean_tree interface-into-backend)
put "$tree" core/store/DeliveryStore.h '#pragma once'
put "$tree" core/store/sqlite/SqliteStatement.h '#pragma once'
put "$tree" core/store/StoreRows.cpp '#include "DeliveryStore.h"' '#include "sqlite/SqliteStatement.h"'
expect "the store's interfaces including a backend below their folder" 1 "$tree" \
    "  core/store/StoreRows.cpp:2: #include \"sqlite/SqliteStatement.h\"" \
    "      core/store (layer 3) -> core/store/sqlite (layer 4): a higher layer"

tree=$(clean_tree backend-into-backend)
put "$tree" core/store/DeliveryStore.h '#pragma once'
put "$tree" core/store/sqlite/SqliteStoreSchema.h '#pragma once' '#include "../DeliveryStore.h"'
put "$tree" core/store/postgres/PostgresStoreReader.cpp '#include "../DeliveryStore.h"' '#include "../sqlite/SqliteStoreSchema.h"'
expect "one store backend including the other" 1 "$tree" \
    "  core/store/postgres/PostgresStoreReader.cpp:2: #include \"../sqlite/SqliteStoreSchema.h\"" \
    "      core/store/postgres (layer 4) -> core/store/sqlite (layer 4): the same layer, neither links the other"

tree=$(clean_tree sideways)
put "$tree" ui/send/SendEventDialog.h '#pragma once'
put "$tree" ui/editor/Editor.cpp '#include "common/Format.h"' '#include "send/SendEventDialog.h"'
expect "two views of the same layer including each other" 1 "$tree" \
    "  ui/editor/Editor.cpp:2: #include \"send/SendEventDialog.h\"" \
    "      ui/editor (layer 10) -> ui/send (layer 10): the same layer, neither links the other"

tree=$(clean_tree core-into-ui)
put "$tree" core/endpoint/TopicEndpoint.cpp '#include "engine/Engine.h"' '#include "common/Format.h"'
expect "core including ui" 1 "$tree" \
    "      core/endpoint (layer 6) -> ui/common (layer 9): a higher layer"

tree=$(clean_tree unplaced)
put "$tree" core/cache/Cache.h '#pragma once' '#include "../Expected.h"'
expect "a directory the table does not place" 1 "$tree" \
    "directories with no layer (add them to the table in scripts/check-include-graph.sh):" \
    "  core/cache (core/cache/Cache.h)"

tree=$(clean_tree retired-folder)
put "$tree" core/io/WorkspaceFolder.h '#pragma once' '#include "../Expected.h"'
expect "a file put back into the retired catch-all folder core/io" 1 "$tree" \
    "  core/io (core/io/WorkspaceFolder.h)"

tree=$(clean_tree ambiguous)
put "$tree" core/Format.h '#pragma once'
put "$tree" app/eventdesk/main.cpp '#include "Format.h"'
put "$tree" ui/editor/CMakeLists.txt 'target_include_directories(eventdesk_ui_editor PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})'
put "$tree" ui/editor/Format.h '#pragma once'
expect "an include two include directories answer differently" 1 "$tree" \
    "  app/eventdesk/main.cpp:1: #include \"Format.h\"" \
    "      names core/Format.h ui/editor/Format.h"

mkdir -p "$work/not-a-tree"
expect "a folder that is no source tree" 2 "$work/not-a-tree"

finish
