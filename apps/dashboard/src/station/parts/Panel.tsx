import { Box, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import classes from '../station.module.css';

export function Panel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Box component="section" className={classes.panel} aria-label={title}>
      <Title order={2} size="h4" mb="xs">
        {title}
      </Title>
      {children}
    </Box>
  );
}
