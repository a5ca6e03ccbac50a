// SPDX-FileCopyrightText: 2026 The EventDesk developers
// SPDX-License-Identifier: Apache-2.0
#pragma once

class QFontMetrics;
class QTableView;

namespace EventDesk::Ui {

// Makes table a list of records as the delivery log and the dead-letter browser show them, so that
// both look and behave alike: whole rows selected, several at once, never edited; smooth
// scrolling; no grid and no row numbers; a context menu left to the caller
// (customContextMenuRequested). Rows are one line of textMetrics' height plus padding, all the
// same, so nothing is measured per row however many there are. Columns fit their content as rows
// arrive (ColumnFitter: elided cells show their whole text as a tooltip), can be resized by hand,
// and the last one takes the rest of the width. Call after setting the model.
void setupRecordTable(QTableView *table, const QFontMetrics &textMetrics);

} // namespace EventDesk::Ui
